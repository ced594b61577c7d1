/** @see https://platform.openai.com/docs/guides/pdf-files */
import { GatewayError } from '../../errors.ts';
import type { DocumentPart, ImagePart } from '../../ir.ts';
import type { OpenAIContentPart, OpenAIProviderConfig } from './types.ts';

export interface MediaContext {
  name: string;
  config: OpenAIProviderConfig;
}

export function writeOpenAIImage(part: ImagePart, param: string, ctx: MediaContext): OpenAIContentPart {
  const { source } = part;
  switch (source.kind) {
    case 'base64':
      return { type: 'image_url', image_url: { url: `data:${source.mediaType};base64,${source.data}` } };
    case 'url':
      return { type: 'image_url', image_url: { url: source.url } };
    case 'file':
      throw new GatewayError('invalid_request', `image: a provider file reference ("${source.fileId}") cannot be sent to OpenAI-compatible host "${ctx.name}"; send the image data or a URL`, { param });
    case 'text':
      throw new GatewayError('invalid_request', 'image: a text source is not an image', { param });
  }
}

/**
 * Text documents become text. PDFs and other binary documents need a host that takes `file`
 * parts; most open-weight hosts do not, and dropping the document would let the model answer as
 * if nothing were attached (pitfall 18), so without `supportsFiles` it is a 400.
 */
export function writeOpenAIDocument(part: DocumentPart, param: string, ctx: MediaContext): OpenAIContentPart {
  const { source } = part;
  if (source.kind === 'text') return { type: 'text', text: source.data };
  if (!ctx.config.supportsFiles) {
    throw new GatewayError(
      'invalid_request',
      `document: this model's host does not accept PDF/file input (provider "${ctx.name}"; set supportsFiles if it does, or send the document as text)`,
      { param },
    );
  }
  switch (source.kind) {
    case 'base64':
      return { type: 'file', file: { file_data: `data:${source.mediaType};base64,${source.data}`, filename: part.title || defaultFilename(source.mediaType) } };
    case 'url':
      throw new GatewayError('invalid_request', `document: URL sources cannot be sent to OpenAI-compatible host "${ctx.name}"; send the file data instead`, { param });
    case 'file':
      throw new GatewayError('invalid_request', `document: a provider file reference ("${source.fileId}") cannot be sent to OpenAI-compatible host "${ctx.name}"; send the file data instead`, { param });
  }
}

function defaultFilename(mediaType: string): string {
  const subtype = mediaType.split('/')[1]?.split(/[;+]/)[0];
  return `document.${subtype || 'bin'}`;
}
