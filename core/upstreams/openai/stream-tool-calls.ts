/** @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming */
import { GatewayError } from '../../errors.ts';
import type { StreamBlocks } from './stream-blocks.ts';
import type { OpenAIMessageFields } from './types.ts';

type ToolFragment = NonNullable<OpenAIMessageFields['tool_calls']>[number];

interface ToolState {
  key: string;
  id?: string;
  name?: string;
  /** All argument text so far. */
  args: string;
  /** Argument text not yet emitted (the call's block has not started). */
  held: string;
  started: boolean;
}

export interface StreamToolCalls {
  push(fragment: ToolFragment): void;
  /** End of the message: closes the open block and emits every call still waiting, in order. */
  finish(): void;
}

/**
 * Turns `delta.tool_calls` fragments into non-overlapping tool-call blocks. Calls are told apart
 * by `id` first (some hosts reuse index 0 for every call or leave `index` out), then by `index`.
 * A call whose fragments arrive while another call's block is still open is held back and
 * replayed once that block is complete: a block is complete when its arguments parse as JSON,
 * which no further fragment could keep true. Sequential hosts therefore stream unbuffered.
 */
export function createStreamToolCalls(blocks: StreamBlocks, fallbackId: (n: number) => string, name: string): StreamToolCalls {
  const tools: ToolState[] = [];
  const byId = new Map<string, ToolState>();
  const byIndex = new Map<number, ToolState>();
  let last: ToolState | undefined;

  const resolve = (fragment: ToolFragment): ToolState => {
    const id = fragment.id || undefined;
    const index = typeof fragment.index === 'number' ? fragment.index : undefined;
    const atIndex = index === undefined ? undefined : byIndex.get(index);
    let tool = id ? byId.get(id) : (atIndex ?? (index === undefined ? last : undefined));
    if (!tool && id && atIndex && !atIndex.id) tool = atIndex;
    if (!tool) {
      tool = { key: `t${tools.length}`, args: '', held: '', started: false };
      tools.push(tool);
    }
    if (id && !tool.id) {
      tool.id = id;
      byId.set(id, tool);
    }
    if (index !== undefined) byIndex.set(index, tool);
    return tool;
  };

  const start = (tool: ToolState) => {
    blocks.startTool(tool.key, tool.id ?? fallbackId(tools.indexOf(tool)), tool.name ?? '');
    tool.started = true;
    if (tool.held) blocks.toolInput(tool.held);
    tool.held = '';
  };

  const promote = () => {
    for (;;) {
      const head = tools.find((t) => !t.started);
      if (!head?.name) return;
      const open = tools.find((t) => t.key === blocks.openToolKey());
      if (open && !isCompleteJson(open.args)) return;
      start(head);
    }
  };

  return {
    push(fragment) {
      const tool = resolve(fragment);
      last = tool;
      const fname = fragment.function?.name;
      if (fname && !tool.name) tool.name = fname;
      const args = fragment.function?.arguments ?? '';
      if (args) {
        tool.args += args;
        if (blocks.openToolKey() === tool.key) blocks.toolInput(args);
        else if (!tool.started) tool.held += args;
        else if (args.trim()) {
          throw new GatewayError('upstream', `Upstream ${name}: arguments for tool call "${tool.id ?? tool.key}" arrived after its block had closed`);
        }
      }
      promote();
    },
    finish() {
      blocks.close();
      for (const tool of tools) {
        if (tool.started) continue;
        start(tool);
        blocks.close();
      }
    },
  };
}

function isCompleteJson(text: string): boolean {
  const trimmed = text.trim();
  const lastChar = trimmed.at(-1);
  if (lastChar !== '}' && lastChar !== ']') return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}
