// What an HTTP/1.1 header value can hold: tab, visible ASCII and space, and
// the Latin-1 range, which Node writes as single bytes. Node and undici refuse
// any other character when the message is sent.
const CARRIABLE = /^[\t\x20-\x7e\x80-\xff]*$/;

export function isHeaderValue(value: string): boolean {
  return CARRIABLE.test(value);
}
