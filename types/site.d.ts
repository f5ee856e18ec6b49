// The globals the site's scripts share (each is a classic script, so that pages work from file://)
// and the ones they find on the page: Material's document$ and the site's own KaTeX.

interface ReaderCards { add(page: string, data: unknown): void }
interface ReaderCode { paint(chunk: Element | null): void; put(key: string, data: unknown): void; add(views: Element[]): void; cuts(text: string): number[]; resize(): void;
  wait(key: string, done: (data: any) => void): void; need(id: string): boolean; lines(): number }
interface ReaderDiff { lines: number; line(n: number): void }
interface ReaderFinder { files(): void; line(): void }
interface ReaderIr { RUN: string; put(id: string, html: string): void; pack(id: string, b64: string): void;
  fetch(el: Element, take: (html: string) => void): void }
interface ReaderScopes { add(path: string, data: [number, number, string, string, string, number?][]): void }
interface ReaderScripts {
  add(key: string, data: any): void;
  load(key: string, src: string, done: (data: any) => void, missing?: unknown): void;
}
interface ReaderUses { add(page: string, data: unknown): void }
interface ReaderLines { put(path: string, blocks: number[][]): void }
interface ReaderBlame { put(path: string, data: unknown): void }
interface ReaderDiffFiles { put(rows: [string, number, number][]): void }
interface ReaderSearch {
  put(name: string, data: unknown): void;
  pack(name: string, b64: string): void;
  load(name: string): Promise<any>;
  base: string;
  open?: (query?: string) => void;
}
interface ReaderRuns {
  LETTERS: string;
  classCode(index: number): string;
  classIndex(code: string): number;
  decode(spec: string): [number, number][];
}
interface Katex { render(tex: string, el: Element, options: object): void }

interface Window {
  readerInflate(b64: string): Promise<string>;
  readerPacked(object: string, method: string, b64: string): void;
  readerScripts(): ReaderScripts;
  readerCards?: ReaderCards;
  readerCode?: ReaderCode;
  readerDiff?: ReaderDiff;
  readerFinder?: ReaderFinder;
  readerIr?: ReaderIr;
  readerRuns?: ReaderRuns;
  readerScopes?: ReaderScopes;
  readerSearch?: ReaderSearch;
  readerUses?: ReaderUses;
  readerLines?: ReaderLines;
  readerDiffFiles?: ReaderDiffFiles;
  readerBlame?: ReaderBlame;
  katex?: Katex;
  document$?: { subscribe(fn: () => void): void };
}
declare var katex: Katex;
declare var module: {exports: unknown} | undefined;
