import { describe, expect, it } from 'vitest';
import { errorMessage, negotiateFormat, renderErrorBody } from '../../src/gateway/errors.js';

const urls = { signup_url: 'http://gw/signup/', contact_url: 'http://gw/contact/', https_url: 'https://gw/x' };

describe('negotiateFormat', () => {
  const format = (path: string, query = '', accept?: string) => negotiateFormat(path, query, accept).contentType;

  it('takes the path extension first, then format=, then Accept, else JSON', () => {
    expect(format('/hello.xml', 'format=json', 'application/json')).toBe('application/xml');
    expect(format('/hello.csv')).toBe('text/csv');
    expect(format('/hello.html')).toBe('text/html');
    expect(format('/hello.json', '', 'text/html')).toBe('application/json');
    expect(format('/hello', 'format=xml', 'application/json')).toBe('application/xml');
    expect(format('/hello', 'format=csv&format=xml')).toBe('text/csv');
    expect(format('/hello')).toBe('application/json');
  });

  it('lets unknown extensions and format[]= fall through', () => {
    expect(format('/movie.mov', '', 'text/csv')).toBe('text/csv');
    expect(format('/dir.xml/file', '', 'text/html')).toBe('text/html');
    expect(format('/hello', 'format[]=xml')).toBe('application/json');
    expect(format('/hello', 'format=yaml', 'text/html')).toBe('text/html');
  });

  it('weighs Accept by q, with ties to the earlier supported type', () => {
    expect(format('/x', '', 'application/json;q=0.5,application/xml;q=0.9')).toBe('application/xml');
    expect(format('/x', '', 'application/*;q=0.5, text/*;q=0.6')).toBe('text/xml');
    expect(format('/x', '', '*/*')).toBe('application/json');
    expect(format('/x', '', 'image/png')).toBe('application/json');
    expect(format('/x', '', 'text/html, */*;q=0.1')).toBe('text/html');
    expect(format('/x', '', 'text/csv;q=0, */*;q=0.2')).toBe('application/json');
    expect(format('/x', '', 'text/xml')).toBe('text/xml');
  });

  it('gives a tie in q to the range the client listed first, exact types before wildcards', () => {
    expect(format('/x', '', 'text/csv, application/json;q=0.5, application/xml, */*;q=0.1')).toBe('text/csv');
    expect(format('/x', '', 'application/json;q=0.5, application/xml;q=0.4, */*;q=0.1, text/csv;q=0.8')).toBe('text/csv');
    expect(format('/x', '', 'text/html, application/json')).toBe('text/html');
    expect(format('/x', '', '*/*, text/csv')).toBe('text/csv');
    expect(format('/x', '', 'text/*, application/xml')).toBe('application/xml');
  });
});

describe('errors', () => {
  it("words messages as API Umbrella does, with the gateway's URLs", () => {
    expect(errorMessage('API_KEY_MISSING', urls)).toBe('No api_key was supplied. Get one at http://gw/signup/');
    expect(errorMessage('API_KEY_INVALID', urls)).toBe('An invalid api_key was supplied. Get one at http://gw/signup/');
    expect(errorMessage('API_KEY_DISABLED', urls)).toBe('The api_key supplied has been disabled. Contact us at http://gw/contact/ for assistance');
    expect(errorMessage('API_KEY_UNAUTHORIZED', urls)).toBe(
      'The api_key supplied is not authorized to access the given service. Contact us at http://gw/contact/ for assistance',
    );
    expect(errorMessage('NOT_FOUND', urls)).toBe('The requested URL was not found on this server.');
    expect(errorMessage('OVER_RATE_LIMIT', urls)).toBe('You have exceeded your rate limit. Try again later or contact us at http://gw/contact/ for assistance');
    expect(errorMessage('INTERNAL_SERVER_ERROR', urls)).toBe('An unexpected error has occurred. Try again later or contact us at http://gw/contact/ for assistance');
    expect(errorMessage('HTTPS_REQUIRED', urls)).toBe('Requests must be made over HTTPS. Try accessing the API at: https://gw/x');
  });

  it('renders and escapes each format', () => {
    const message = `a <b> & "c", 'd'`;
    expect(renderErrorBody('json', 'CODE', message)).toBe(JSON.stringify({ error: { code: 'CODE', message } }));
    expect(renderErrorBody('xml', 'CODE', message)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><response><error><code>CODE</code><message>a &lt;b&gt; &amp; &quot;c&quot;, &#39;d&#39;</message></error></response>',
    );
    expect(renderErrorBody('csv', 'CODE', message)).toBe(`Error Code,Error Message\nCODE,"a <b> & ""c"", 'd'"\n`);
    expect(renderErrorBody('csv', 'CODE', 'plain')).toBe('Error Code,Error Message\nCODE,plain\n');
    expect(renderErrorBody('html', 'CODE', message)).toBe('<html><body><h1>CODE</h1><p>a &lt;b&gt; &amp; &quot;c&quot;, &#39;d&#39;</p></body></html>');
  });
});
