/** Contracts of the web clients: what a search returns, and how a web API call failed. */

/** One search result as the model reads it. */
export interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
  /** The page's date as the backend gives it (ISO 8601 or a day), when it knows one. */
  readonly date?: string;
}

/** A web API call's outcome: its value, or a message a user can act on. */
export type WebCall<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly message: string;
      /** Cancelled by the user: the turn's own stop says so, the message need not. */
      readonly cancelled?: true;
    };

/** Searches one backend; never throws. */
export interface SearchBackend {
  /** How results are attributed ("DeepSeek Search", "SearXNG"). */
  readonly name: string;
  /** Whether each call that returns results costs `COST_PER_CALL_USD`. */
  readonly paid: boolean;
  search(query: string, count: number, signal: AbortSignal): Promise<WebCall<readonly SearchHit[]>>;
}

/** A page DeepSeek's Fetch API read for us. */
export interface FetchedByApi {
  readonly title: string;
  /** The page as Markdown. */
  readonly content: string;
}
