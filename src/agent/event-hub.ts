/**
 * Fan-out of live events to any number of subscribers. Each subscriber gets its own queue,
 * so a slow consumer never loses events and never blocks the producer or other consumers.
 */

export interface EventHub<T> {
  publish(event: T): void;
  /** Events published from now on, until `close()` or the consumer stops iterating. */
  subscribe(): AsyncIterable<T>;
  close(): void;
}

export function createEventHub<T>(): EventHub<T> {
  const subscribers = new Set<Subscriber<T>>();
  let closed = false;

  return {
    publish(event) {
      for (const subscriber of subscribers) subscriber.push(event);
    },
    subscribe() {
      const subscriber = new Subscriber<T>(() => subscribers.delete(subscriber));
      if (closed) subscriber.end();
      else subscribers.add(subscriber);
      return subscriber;
    },
    close() {
      closed = true;
      for (const subscriber of subscribers) subscriber.end();
      subscribers.clear();
    },
  };
}

class Subscriber<T> implements AsyncIterable<T> {
  private readonly queue: T[] = [];
  private waiting: PromiseWithResolvers<IteratorResult<T>> | undefined;
  private ended = false;

  constructor(private readonly detach: () => void) {}

  push(event: T): void {
    if (this.ended) return;
    if (this.waiting) {
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting.resolve({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  end(): void {
    this.ended = true;
    this.waiting?.resolve({ value: undefined, done: true });
    this.waiting = undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const next = this.queue.shift();
        if (next !== undefined) return Promise.resolve({ value: next, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        this.waiting = Promise.withResolvers();
        return this.waiting.promise;
      },
      return: () => {
        this.end();
        this.detach();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
