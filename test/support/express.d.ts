// The little of express the OAuth test server uses (express comes with the MCP SDK; its types do not).
declare module 'express' {
  import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
  export interface Request extends IncomingMessage {
    body?: unknown;
  }
  export interface Response extends ServerResponse {
    redirect(url: string): void;
    status(code: number): Response;
  }
  export type RequestHandler = (req: Request, res: Response, next: (error?: unknown) => void) => void;
  export interface Application extends RequestListener {
    use(...handlers: unknown[]): Application;
    all(path: string, ...handlers: unknown[]): Application;
  }
  interface Express {
    (): Application;
    json(): RequestHandler;
  }
  const express: Express;
  export default express;
}
