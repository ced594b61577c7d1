/** @see https://ai.google.dev/gemini-api/docs/file-input-methods */
import { GatewayError } from '../../errors.ts';
import type { DocumentPart, ImagePart } from '../../ir.ts';
import type { Warn } from '../types.ts';
import { mapMimeType } from './map-mime-type.ts';
import type { GeminiPart } from './wire-types.ts';

/**
 * An image or document → one Gemini part: base64 → inlineData, a URL or a Gemini file URI →
 * fileData, a plain-text document → text. `path` names the part in messages for errors/warnings.
 */
export function writeGeminiMedia(part: ImagePart | DocumentPart, path: string, warn: Warn): GeminiPart {
  const { source } = part;
  if (part.type === 'document') {
    if (part.context) warn(`${path}: document context is not supported by Gemini and was dropped`);
    if (part.citations?.enabled) warn(`${path}: citations are not supported by Gemini and were not requested`);
  }
  switch (source.kind) {
    case 'base64':
      return { inlineData: { mimeType: source.mediaType, data: source.data } };
    case 'text':
      if (part.type === 'image') throw new GatewayError('invalid_request', `${path}: an image cannot have a text source`, { param: path });
      return { text: source.data };
    case 'url': {
      const mimeType = source.mediaType ?? mapMimeType(source.url);
      if (!mimeType) warn(`${path}: the media type of the ${part.type} URL could not be inferred; sent without mimeType`);
      return { fileData: { ...(mimeType ? { mimeType } : {}), fileUri: source.url } };
    }
    case 'file':
      // Another provider's file id (Anthropic "file_…") means nothing to Gemini.
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(source.fileId)) {
        throw new GatewayError('invalid_request', `${path}: file "${source.fileId}" is not a Gemini file URI`, { param: path });
      }
      return { fileData: { ...(source.mediaType ? { mimeType: source.mediaType } : {}), fileUri: source.fileId } };
  }
}
