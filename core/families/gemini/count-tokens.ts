/** @see https://ai.google.dev/api/tokens#method:-models.counttokens */
import type { CatalogModel } from '../../catalog.ts';
import { runCountTokens, TOKEN_COUNT_HEADER } from '../../chat/run-count-tokens.ts';
import type { RequestContext } from '../../context.ts';
import type { JsonBody } from '../../http/json-body.ts';
import type { Reply } from '../../http/reply.ts';
import { jsonReply } from '../../http/respond.ts';
import { parseWith } from '../../validate.ts';
import { readGeminiRequest } from './read-request.ts';
import { GeminiCountTokensRequest } from './schema.ts';
import { writeWarnings } from '../../http/warnings.ts';
import type { PassthroughCall } from '../../upstreams/types.ts';

/**
 * `:countTokens` → `{totalTokens}`. The body is `{contents}` (all the SDK sends) or a whole
 * `{generateContentRequest}`; a Gemini route gets it as it is, other routes count the IR.
 * `x-switchyard-token-count` says whether the number is the provider's or an estimate.
 */
export async function countGeminiTokens(ctx: RequestContext, model: CatalogModel, source: JsonBody, headers: PassthroughCall['headers']): Promise<Reply> {
  const body = parseWith(GeminiCountTokensRequest, source.object);
  const warnings: string[] = [];
  const outcome = await runCountTokens({
    ctx,
    model,
    family: 'gemini',
    request: () =>
      readGeminiRequest(body.generateContentRequest ?? { contents: body.contents ?? [] }, {
        model: model.id,
        stream: false,
        warn: (m) => warnings.push(m),
      }),
    passthrough: { source, headers, action: 'countTokens', stream: false },
  });
  if (outcome.kind === 'reply') return outcome.reply;
  const out = writeWarnings(warnings, { [TOKEN_COUNT_HEADER]: outcome.source });
  return jsonReply(ctx, { totalTokens: outcome.inputTokens }, 200, out);
}
