import type { UsageRecord } from './types.ts';

/** Index 0 of the string table: a field the record does not have (provider, upstreamModel). */
const ABSENT = 0;

/**
 * The most recent usage records in a fixed ring of typed-array columns. Kept as one object each,
 * 10,000–15,000 records took ~3.9 MiB live, and their churn (every trim copied the array and
 * left the folded objects in old space for a full collection) cost more: JSON passthrough peak
 * RSS was 88–90 MiB on Bun and 116–120 on Node, against 82–84 and 110 with this ring (~1.7 MiB
 * live; an append allocates nothing but its request id). Repeated strings (key, family, model,
 * provider, upstream model) are kept once in a table and stored as its index; the table holds
 * distinct values only, which the keys and the catalog bound.
 */
export class UsageRing {
  readonly capacity: number;
  #size = 0;
  /** Slot the next record goes to; once full, also the oldest record's slot. */
  #next = 0;
  readonly #requestId: string[];
  readonly #numbers: Float64Array;
  readonly #names: Uint32Array;
  readonly #status: Uint16Array;
  readonly #flags: Uint8Array;
  readonly #strings: string[] = [''];
  readonly #indexOf = new Map<string, number>();

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
    this.#requestId = new Array<string>(this.capacity).fill('');
    this.#numbers = new Float64Array(this.capacity * NUMBER_FIELDS);
    this.#names = new Uint32Array(this.capacity * NAME_FIELDS);
    this.#status = new Uint16Array(this.capacity);
    this.#flags = new Uint8Array(this.capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Adds a record; when full, the oldest is overwritten and handed to `evicted` first. */
  push(record: UsageRecord, evicted?: (oldest: UsageRecord) => void): void {
    const slot = this.#next;
    if (this.#size === this.capacity) evicted?.(this.#read(slot));
    else this.#size++;
    this.#next = (slot + 1) % this.capacity;
    this.#requestId[slot] = record.requestId;
    const n = slot * NUMBER_FIELDS;
    const numbers = this.#numbers;
    numbers[n] = record.time;
    numbers[n + 1] = record.inputTokens;
    numbers[n + 2] = record.outputTokens;
    numbers[n + 3] = record.cacheReadTokens;
    numbers[n + 4] = record.cacheWriteTokens;
    numbers[n + 5] = record.costNanoUsd;
    numbers[n + 6] = record.latencyMs;
    numbers[n + 7] = record.ttfbMs ?? Number.NaN;
    const s = slot * NAME_FIELDS;
    const names = this.#names;
    names[s] = this.#intern(record.keyId);
    names[s + 1] = this.#intern(record.family);
    names[s + 2] = this.#intern(record.model);
    names[s + 3] = record.provider === undefined ? ABSENT : this.#intern(record.provider);
    names[s + 4] = record.upstreamModel === undefined ? ABSENT : this.#intern(record.upstreamModel);
    this.#status[slot] = record.status;
    this.#flags[slot] = record.aborted ? 1 : 0;
  }

  /** The records, oldest first, each as a new object. */
  *[Symbol.iterator](): IterableIterator<UsageRecord> {
    const first = this.#size === this.capacity ? this.#next : 0;
    for (let i = 0; i < this.#size; i++) yield this.#read((first + i) % this.capacity);
  }

  #read(slot: number): UsageRecord {
    const n = slot * NUMBER_FIELDS;
    const s = slot * NAME_FIELDS;
    const numbers = this.#numbers;
    const names = this.#names;
    const strings = this.#strings;
    const record: UsageRecord = {
      requestId: this.#requestId[slot]!,
      time: numbers[n]!,
      keyId: strings[names[s]!]!,
      family: strings[names[s + 1]!]!,
      model: strings[names[s + 2]!]!,
      status: this.#status[slot]!,
      inputTokens: numbers[n + 1]!,
      outputTokens: numbers[n + 2]!,
      cacheReadTokens: numbers[n + 3]!,
      cacheWriteTokens: numbers[n + 4]!,
      costNanoUsd: numbers[n + 5]!,
      latencyMs: numbers[n + 6]!,
      aborted: this.#flags[slot] === 1,
    };
    if (names[s + 3] !== ABSENT) record.provider = strings[names[s + 3]!]!;
    if (names[s + 4] !== ABSENT) record.upstreamModel = strings[names[s + 4]!]!;
    if (!Number.isNaN(numbers[n + 7])) record.ttfbMs = numbers[n + 7]!;
    return record;
  }

  #intern(value: string): number {
    let index = this.#indexOf.get(value);
    if (index === undefined) {
      index = this.#strings.push(value) - 1;
      this.#indexOf.set(value, index);
    }
    return index;
  }
}

/** time, input, output, cache read, cache write, cost, latency, ttfb. */
const NUMBER_FIELDS = 8;
/** key, family, model, provider, upstream model. */
const NAME_FIELDS = 5;
