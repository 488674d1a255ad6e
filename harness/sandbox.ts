/**
 * The sandbox (sandbox/, the local imitation of the payouts service) for TypeScript: its seed,
 * trigger table and server for the benchmark and the tests, and `useSandbox`, one real sandbox
 * server per jest test file, reset to its seeded state before every test.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

// The sandbox stands for the service: plain JavaScript, never importing the nodes.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sandboxModule = require('../sandbox') as typeof import('../sandbox');

export const { seed, triggers, startSandbox } = sandboxModule;
export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export function useSandbox(options: Parameters<typeof startSandbox>[0] = {}) {
	const holder = {} as { sandbox: Sandbox };
	beforeAll(async () => {
		holder.sandbox = await startSandbox({ port: 0, host: '127.0.0.1', ...options });
	});
	beforeEach(() => holder.sandbox.reset());
	afterAll(async () => holder.sandbox.close());
	return {
		get sandbox() {
			return holder.sandbox;
		},
		/** The credential a user would create for the sandbox. */
		credentials(overrides: Partial<Record<string, string>> = {}): ICredentialDataDecryptedObject {
			return {
				baseUrl: holder.sandbox.baseUrl,
				verificationUrl: holder.sandbox.verificationUrl,
				...seed.credentials,
				...overrides,
			} as ICredentialDataDecryptedObject;
		},
	};
}
