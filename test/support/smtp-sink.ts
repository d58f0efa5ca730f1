import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A real SMTP server on 127.0.0.1 that keeps every delivered message, parsed. */
export class SmtpSink {
  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
    readonly messages: ParsedMail[],
    private readonly waiters: (() => void)[],
  ) {}

  static async start(): Promise<SmtpSink> {
    const messages: ParsedMail[] = [];
    const waiters: (() => void)[] = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, callback) {
        simpleParser(stream)
          .then((mail) => {
            messages.push(mail);
            for (const wake of waiters.splice(0)) wake();
            callback();
          })
          .catch(callback);
      },
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
    return new SmtpSink(server, port, messages, waiters);
  }

  /** The subject of sign-in mails: a member who was just invited has an invitation mail too. */
  static readonly SIGN_IN = /sign-in link/;

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The latest mail to `to` (whose subject matches `subject`, when given), waiting up to `timeoutMs` for one. */
  async waitForMail(to: string, timeoutMs = 10_000, subject?: RegExp): Promise<ParsedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = [...this.messages]
        .reverse()
        .find((m) => addressesOf(m).includes(to.toLowerCase()) && (!subject || subject.test(m.subject ?? '')));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function addressesOf(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((t) => t.value.map((v) => (v.address ?? '').toLowerCase()));
}

export function signInTokenFrom(mail: ParsedMail): string {
  const match = /sign-in\?token=([0-9A-Za-z]+)/.exec(mail.text ?? '');
  if (!match?.[1]) throw new Error('no sign-in link in the mail');
  return match[1];
}
