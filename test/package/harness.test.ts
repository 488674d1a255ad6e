/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// The end-to-end harness's reading of an `n8n execute` that a signal ended (docs/testing.md, n8n's hiccups).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../harness') as {
	executeWorkflow: (
		id: string,
		env: NodeJS.ProcessEnv,
		options: { runtime: { nodeBin: string; n8nScript: string } },
	) => Promise<{ code: number; run: { data: { resultData: { error?: unknown } } } }>;
};

let folder: string;
beforeAll(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-harness-'))));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

/** A stand-in for n8n's CLI that prints `printed` as `n8n execute --rawOutput` does, then is ended by SIGSEGV. */
function crashingCli(printed: string) {
	const script = path.join(folder, `cli-${Math.random().toString(36).slice(2)}.js`);
	fs.writeFileSync(
		script,
		`process.stdout.write(${JSON.stringify(printed)}, () => process.kill(process.pid, 'SIGSEGV'));`,
	);
	return { nodeBin: process.execPath, n8nScript: script };
}
const result = (error?: object) =>
	JSON.stringify({ data: { resultData: { runData: {}, ...(error ? { error } : {}) } } }, null, 2);

test.each([
	['a run that succeeded', result(), 0],
	['a run that holds an error', result({ message: 'Post To Chat failed' }), 1],
])(
	'a CLI ended by a signal after it printed its whole result: %s is read, with the exit code n8n gives it',
	async (_name, printed, code) => {
		const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
		const run = await n8n.executeWorkflow('w1', process.env, {
			runtime: crashingCli(`Some log line\n${printed}\n`),
		});
		expect(run).toEqual({ code, run: JSON.parse(printed) });
		expect(warn).toHaveBeenCalledWith(
			expect.stringContaining('was ended by SIGSEGV after it printed its whole result'),
		);
		warn.mockRestore();
	},
);

test('a CLI ended by a signal before its whole result was printed: the outcome is not known, and the error says so with the output', async () => {
	const cut = result().slice(0, 30);
	await expect(
		n8n.executeWorkflow('w2', process.env, { runtime: crashingCli(`Some log line\n${cut}`) }),
	).rejects.toThrow(
		/n8n execute --id=w2 was ended by SIGSEGV before it printed its result; its stdout:\nSome log line\n\{/,
	);
});
