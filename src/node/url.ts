// The one check of a node's base URL, for every place that is given one (the service's
// upstreams.node, the signer's --node, a policy file's confirmWithNode and pchainNode).

/**
 * Checks a node base URL such as `http://127.0.0.1:9650` and returns it normalized: origin and
 * path, no trailing slash. Credentials, query and fragment are dropped: fetch refuses a URL
 * carrying credentials, and a node's API paths are appended to the base.
 */
export function parseNodeUrl(text: string, what = 'node URL'): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RangeError(`${what} '${text}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RangeError(`${what} '${text}' must be http:// or https://`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
