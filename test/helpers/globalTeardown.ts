/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it reads what the global set-up left in jest's process); this rule guards the code n8n loads (nodes/, credentials/) */
/**
 * Jest's global tear-down (jest.config.js): waits for what globalSetup.ts started in the background
 * (the n8n install, the package's pack), so that nothing is left half-done and a failure is said.
 */
export default async function globalTeardown() {
	const { payoutsBackground } = globalThis as {
		payoutsBackground?: Array<{ promise: Promise<unknown> }>;
	};
	for (const entry of payoutsBackground ?? []) await entry.promise;
}
