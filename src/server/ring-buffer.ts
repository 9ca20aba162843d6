/**
 * A fixed-capacity FIFO that keeps the newest items: pushing onto a full buffer drops the oldest.
 * Used for a server's last stderr lines, so a chatty server costs a bounded amount of memory.
 */
export class RingBuffer<T> {
  readonly capacity: number;
  readonly #items: (T | undefined)[];
  /** Index of the oldest item. */
  #head = 0;
  #size = 0;

  /**
   * @example
   * const tail = new RingBuffer<string>(3);
   * for (const line of ['a', 'b', 'c', 'd']) tail.push(line);
   * tail.toArray(); // ['b', 'c', 'd']
   */
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`RingBuffer capacity must be a non-negative integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Appends `item`, dropping the oldest item when full. A capacity of 0 keeps nothing. */
  push(item: T): void {
    if (this.capacity === 0) return;
    if (this.#size < this.capacity) {
      this.#items[(this.#head + this.#size) % this.capacity] = item;
      this.#size += 1;
      return;
    }
    this.#items[this.#head] = item;
    this.#head = (this.#head + 1) % this.capacity;
  }

  /** The items, oldest first, as a fresh array. */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.#size; i += 1) out.push(this.#items[(this.#head + i) % this.capacity] as T);
    return out;
  }

  clear(): void {
    this.#items.fill(undefined);
    this.#head = 0;
    this.#size = 0;
  }
}
