/** The part of swagger-ui-dist's bundle (CommonJS, no types of its own) the API documentation uses. */
declare module 'swagger-ui-dist/swagger-ui-es-bundle.js' {
  const SwaggerUIBundle: (options: {
    domNode: HTMLElement;
    url: string;
    deepLinking?: boolean;
    docExpansion?: 'list' | 'full' | 'none';
    defaultModelsExpandDepth?: number;
    tryItOutEnabled?: boolean;
    requestInterceptor?: (request: { headers: Record<string, string> }) => unknown;
  }) => unknown;
  export default SwaggerUIBundle;
}
