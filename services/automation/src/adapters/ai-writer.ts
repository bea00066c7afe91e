/**
 * Writes the body of an `ai_generated` email from the step's prompt, through an OpenAI-compatible
 * chat-completions endpoint when AI_PROVIDER_URL (and AI_MODEL, AI_API_KEY) are configured. With no
 * provider the step fails and says what is missing: an email is never faked.
 */

export interface AiWriter {
  /** Null when no provider is configured; the reason says what to set. */
  readonly missing: string | null;
  write(prompt: string): Promise<{ subject: string; body: string }>;
}

export class NoAiWriter implements AiWriter {
  readonly missing =
    'ai_generated emails need a model provider, and none is configured: set AI_PROVIDER_URL (an OpenAI-compatible API base URL), AI_MODEL and AI_API_KEY on the automation workers.';
  async write(): Promise<never> {
    throw new Error(this.missing);
  }
}

export class OpenAiCompatibleWriter implements AiWriter {
  readonly missing = null;
  constructor(
    private readonly baseUrl: string,
    private readonly model: string,
    private readonly apiKey: string | undefined,
    /** AI_TIMEOUT_MS: below the step's claim. */
    private readonly timeoutMs = 30_000,
  ) {}

  async write(prompt: string): Promise<{ subject: string; body: string }> {
    const response = await fetch(`${this.baseUrl.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
      body: JSON.stringify({
        model: this.model,
        messages: [
          {
            role: 'system',
            content: 'You write short, plain-text business emails. Answer with the subject on the first line, a blank line, then the body.',
          },
          { role: 'user', content: prompt },
        ],
      }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) throw new Error(`The model provider answered ${response.status}.`);
    const data = (await response.json()) as { choices?: Array<{ message?: { content?: string } }> };
    const text = data.choices?.[0]?.message?.content?.trim();
    if (!text) throw new Error('The model provider answered without any text.');
    const [first, ...rest] = text.split('\n');
    return { subject: first!.replace(/^subject:\s*/i, '').trim(), body: rest.join('\n').trim() || text };
  }
}

export function aiWriterFor(
  baseUrl: string | undefined,
  model: string | undefined,
  apiKey: string | undefined,
  timeoutMs?: number,
): AiWriter {
  return baseUrl && model ? new OpenAiCompatibleWriter(baseUrl, model, apiKey, timeoutMs) : new NoAiWriter();
}
