/** @see https://ai.google.dev/gemini-api/docs/document-processing */
import { GatewayError } from '../../errors.ts';
import type { DocumentPart, ImagePart, MediaSource } from '../../ir.ts';

interface GeminiBlob {
  mimeType: string;
  data: string;
}
interface GeminiFileData {
  mimeType?: string;
  fileUri: string;
}

/**
 * `inlineData` → an image or a document. Plain-text media is decoded so providers that only
 * take PDFs as base64 documents still get the text. Audio and video have no IR part: they are
 * refused rather than dropped, since the model would answer as if nothing was attached.
 */
export function readGeminiInlineData(blob: GeminiBlob, path: string): ImagePart | DocumentPart {
  const mediaType = blob.mimeType.toLowerCase();
  refuseAudioVideo(mediaType, `${path}.mimeType`);
  if (mediaType.startsWith('image/')) return { type: 'image', source: { kind: 'base64', mediaType, data: blob.data } };
  if (mediaType.startsWith('text/')) return { type: 'document', source: { kind: 'text', mediaType, data: decodeText(blob.data, `${path}.data`) } };
  return { type: 'document', source: { kind: 'base64', mediaType, data: blob.data } };
}

/**
 * `fileData` → a URL source for plain http(s) links, a file reference for Gemini Files API and
 * `gs://` URIs (only a Gemini upstream can open those; other upstreams refuse them by kind).
 */
export function readGeminiFileData(file: GeminiFileData, path: string): ImagePart | DocumentPart {
  const uri = file.fileUri;
  const mediaType = file.mimeType?.toLowerCase() ?? guessMediaType(uri);
  if (mediaType) refuseAudioVideo(mediaType, `${path}.mimeType`);
  if (/^https?:\/\/(www\.)?(youtube\.com|youtu\.be)\//i.test(uri)) refuseAudioVideo('video/*', `${path}.fileUri`);
  const google = uri.startsWith('gs://') || /^https:\/\/generativelanguage\.googleapis\.com\//.test(uri);
  const source: MediaSource = google
    ? { kind: 'file', fileId: uri, ...(mediaType && { mediaType }) }
    : { kind: 'url', url: uri, ...(mediaType && { mediaType }) };
  return mediaType?.startsWith('image/') ? { type: 'image', source } : { type: 'document', source };
}

function refuseAudioVideo(mediaType: string, param: string): void {
  if (mediaType.startsWith('audio/') || mediaType.startsWith('video/')) {
    throw new GatewayError('invalid_request', `${param}: ${mediaType.split('/')[0]} input is only supported when the model is served by Gemini`, { param });
  }
}

const EXTENSIONS: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf' };

function guessMediaType(uri: string): string | undefined {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(uri)?.[1]?.toLowerCase();
  return ext ? EXTENSIONS[ext] : undefined;
}

function decodeText(base64: string, param: string): string {
  try {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new GatewayError('invalid_request', `${param}: must be base64 of UTF-8 text`, { param });
  }
}
