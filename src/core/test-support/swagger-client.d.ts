// The part of swagger-client (no bundled types) the contract tests use: build a client from a
// resolved Swagger 2.0 document and execute operations by operationId.
declare module 'swagger-client' {
  export interface SwaggerResponse {
    status: number;
    ok: boolean;
    url: string;
    headers: Record<string, string>;
    text: string | undefined;
    body: unknown;
  }
  export interface ExecuteOptions {
    operationId: string;
    parameters?: Record<string, unknown>;
    requestContentType?: string;
    securities?: { authorized: Record<string, unknown> };
    requestInterceptor?: (req: { headers: Record<string, string>; url: string; method: string }) => unknown;
  }
  export interface SwaggerClientInstance {
    spec: Record<string, unknown>;
    execute(options: ExecuteOptions): Promise<SwaggerResponse>;
  }
  interface SwaggerClientFactory {
    (options: { spec: object; authorizations?: Record<string, unknown> }): Promise<SwaggerClientInstance>;
  }
  const SwaggerClient: SwaggerClientFactory;
  export default SwaggerClient;
}
