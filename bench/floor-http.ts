/**
 * The REST floor: bare node:http that reads the JSON body, JSON.parses it and answers a static
 * JSON body shaped and sized like a score response (~3.5 KB). Nothing the service does can be cheaper, so
 * the service's requests/s are reported as a fraction of this server's, measured in the same run.
 */
import { createServer } from 'node:http';
import { scoreShapedAnswer } from './floor-answer.ts';

const body = JSON.stringify(scoreShapedAnswer('203.0.113.9', 12345));

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      if (chunks.length) JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"ok":false,"error":"invalid_json"}');
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
