import { Redactor } from "../redaction/redactor.js";

/**
 * Every secret one server's authorization has seen (tokens, codes, verifiers, client
 * secrets), and the redactor that hides them; each new one is also passed to `onSecret`.
 */
export class SecretCollector {
  readonly #secrets = new Set<string>();
  readonly #onSecret: ((value: string) => void) | undefined;
  #redactor = Redactor.none;

  constructor(onSecret?: (value: string) => void) {
    this.#onSecret = onSecret;
  }

  get redactor(): Redactor {
    return this.#redactor;
  }

  add(value: string): void {
    if (value.length < 4 || this.#secrets.has(value)) return;
    this.#secrets.add(value);
    this.#redactor = this.#redactor.with(Redactor.forValues([value]));
    this.#onSecret?.(value);
  }
}
