// A webhook receiver for trying the service out: verifies each delivery with the
// standardwebhooks package and prints it. WEBHOOK_SECRET=whsec_… node scripts/webhook-receiver.js [port]
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const hook = new Webhook(process.env.WEBHOOK_SECRET ?? '');
const port = Number(process.argv[2] ?? 4000);
http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      try {
        const event = hook.verify(body, req.headers); // a bad signature or an old timestamp throws
        console.log(`verified ${req.headers['webhook-id']}: seq ${event.seq} ${event.type} ${JSON.stringify(event.data)}`);
        res.writeHead(204).end();
      } catch (error) {
        console.log(`refused: ${error.message}`);
        res.writeHead(400).end();
      }
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}/hooks`));
