/** The floor of the start benchmark: node + tsx + an HTTP server, none of the app. */
import http from 'node:http';

const server = http.createServer((_request, response) => response.end('ok'));
server.listen(Number(process.env.PORT ?? '0'), process.env.HOST ?? '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
