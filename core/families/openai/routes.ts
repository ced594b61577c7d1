import type { RouterType, IRequestStrict } from 'itty-router';
import type { Guard } from '../../app.ts';
import type { RequestContext } from '../../context.ts';
import { GatewayError } from '../../errors.ts';
import { jsonReply } from '../../http/respond.ts';
import { visibleModels } from '../../visible-models.ts';
import { writeOpenAIModel, writeOpenAIModelList } from './write-model-list.ts';

type Router = RouterType<IRequestStrict, [RequestContext]>;

/** The listing family: `GET {base}/models` and `GET {base}/models/{id}`. */
export function registerOpenAIRoutes(router: Router, base: string, guard: Guard): void {
  router.get(`${base}/models`, guard, (_req, ctx) => {
    const { owner } = ctx.services.config;
    return jsonReply(ctx, writeOpenAIModelList(visibleModels(ctx), owner));
  });
  router.get(`${base}/models/:id+`, guard, (req, ctx) => {
    const id = decodeURIComponent(req.params.id!);
    // The prefixed name and aliases work here too, as they do in generate and messages calls.
    const found = ctx.services.catalog.find(id);
    const model = found && visibleModels(ctx).includes(found) ? found : undefined;
    if (!model) throw new GatewayError('not_found', `The model "${id}" does not exist`, { param: 'model' });
    ctx.model = model.id;
    return jsonReply(ctx, writeOpenAIModel(model, ctx.services.config.owner));
  });
}
