import type { IRequestStrict, RouterType } from 'itty-router';
import type { RequestContext } from '../../context.ts';

type Router = RouterType<IRequestStrict, [RequestContext]>;

export function registerGeminiRoutes(_router: Router, _base: string, _guard: (req: IRequestStrict, ctx: RequestContext) => Promise<undefined>): void {}
