import type { ServerResponse } from 'node:http';

export type Headers = Readonly<Record<string, string>>;

export function sendBytes(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: Buffer,
  headers: Headers = {},
): void {
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': String(body.length) });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  sendBytes(res, status, 'application/json; charset=utf-8', Buffer.from(JSON.stringify(body)), headers);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Headers = {}): void {
  res.writeHead(status, { ...headers, 'Content-Length': '0' });
  res.end();
}

/** A success whose JSON is cut short, as a proxy that dropped the connection mid-body would deliver it. */
export function sendTruncatedJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  // Every body here is an object or array, so any proper prefix of it is invalid JSON.
  const cut = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  sendBytes(res, status, 'application/json; charset=utf-8', Buffer.from(cut));
}

const REASONS: Readonly<Record<number, string>> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
};

/** The page a gateway in front of the service answers with when the service is down. */
export function gatewayErrorPage(status: number): Buffer {
  const title = `${status} ${REASONS[status] ?? 'Error'}`;
  return Buffer.from(
    `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
  );
}
