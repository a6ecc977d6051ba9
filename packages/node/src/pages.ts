/** One page of a list, and (with `for await`) every item from here to the last page. */
export class Page<T> implements AsyncIterable<T> {
  readonly data: T[];
  readonly hasMore: boolean;
  readonly #next: (startingAfter: string) => Promise<Page<T>>;

  constructor(data: T[], hasMore: boolean, next: (startingAfter: string) => Promise<Page<T>>) {
    this.data = data;
    this.hasMore = hasMore;
    this.#next = next;
  }

  /** The page after this one, or null on the last page. */
  async nextPage(): Promise<Page<T> | null> {
    const last = this.data.at(-1) as { id?: string } | undefined;
    if (!this.hasMore || last?.id === undefined) return null;
    return this.#next(last.id);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (let page: Page<T> | null = this; page; page = await page.nextPage()) yield* page.data;
  }
}

/** A list call: await it for the first page, or iterate it with `for await` for every item. */
export type PagePromise<T> = Promise<Page<T>> & AsyncIterable<T>;

interface WireList<T> {
  data: T[];
  has_more: boolean;
}

/** Fetches a page from a cursor; `fetchPage(undefined)` is the first page. */
export function paginate<T>(fetchPage: (startingAfter: string | undefined) => Promise<WireList<T>>): PagePromise<T> {
  const load = async (startingAfter: string | undefined): Promise<Page<T>> => {
    const list = await fetchPage(startingAfter);
    return new Page(list.data, list.has_more, load);
  };
  const first = load(undefined);
  return Object.assign(first, {
    async *[Symbol.asyncIterator]() {
      yield* await first;
    },
  });
}
