/**
 * A list that keeps only the rows in view (plus a margin) in the DOM, so 100,000 events
 * scroll as smoothly as 100. Rows have one fixed height.
 */
export class VirtualList {
  private items: ArrayLike<number> = [];
  private readonly spacer: HTMLDivElement;
  private frame = 0;

  constructor(
    private readonly container: HTMLElement,
    private readonly rowHeight: number,
    private readonly renderRow: (item: number, top: number) => HTMLElement,
  ) {
    this.spacer = document.createElement("div");
    this.spacer.className = "spacer";
    container.appendChild(this.spacer);
    container.addEventListener("scroll", () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(container);
  }

  get length(): number {
    return this.items.length;
  }

  setItems(items: ArrayLike<number>): void {
    this.items = items;
    this.spacer.style.height = `${items.length * this.rowHeight}px`;
    this.render();
  }

  /** Re-renders the rows in view (after a selection or cursor change). */
  refresh(): void {
    this.render();
  }

  /** Scrolls so that the item at `k` (an index into the items) is in view. */
  scrollToItem(k: number): void {
    const top = k * this.rowHeight;
    const { scrollTop, clientHeight } = this.container;
    if (top < scrollTop) this.container.scrollTop = top;
    else if (top + this.rowHeight > scrollTop + clientHeight)
      this.container.scrollTop = top - clientHeight + this.rowHeight * 2;
    this.render();
  }

  private schedule(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private render(): void {
    const { scrollTop, clientHeight } = this.container;
    const first = Math.max(0, Math.floor(scrollTop / this.rowHeight) - 10);
    const last = Math.min(
      this.items.length,
      Math.ceil((scrollTop + clientHeight) / this.rowHeight) + 10,
    );
    const rows: HTMLElement[] = [];
    for (let k = first; k < last; k++)
      rows.push(this.renderRow(this.items[k]!, k * this.rowHeight));
    this.spacer.replaceChildren(...rows);
  }
}
