/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it starts a stand-in web server with Node's http); this rule guards the code n8n loads (nodes/, credentials/) */
/**
 * What a new user meets before the first payout, in n8n's own parts against the sandbox over HTTP:
 * the credential's Test (n8n-core's CredentialTestContext, the helper n8n gives a credential test)
 * says what the service said, in its words with what to do; a Base URL that answers as something
 * else than the service (a web server's 404 page) is "nothing sent", found at the first request and
 * not asked again in the run.
 */
import http from 'node:http';

import { CredentialTestContext } from 'n8n-core';

import { testPayoutsCredential } from '../../nodes/shared/run/credentialTest';
import { runNode, stopEngineTimers } from '../../harness/engine';
import { seed, useSandbox } from '../../harness/sandbox';
import { standardTransfer } from './setup';

afterAll(stopEngineTimers);

const service = useSandbox();

async function testCredential(data: Record<string, string>) {
	return await testPayoutsCredential.call(new CredentialTestContext(), {
		id: '1',
		name: 'Payouts Sandbox',
		type: 'payoutsApi',
		data: { ...service.credentials(), ...data },
	});
}

describe("the credential's Test says what the service said", () => {
	test.each([
		[
			'a valid token',
			{},
			{ status: 'OK', message: 'Connection tested: the service accepted the access token' },
		],
		[
			'an expired token',
			{ accessToken: seed.tokens.expired },
			{
				status: 'Error',
				message: expect.stringMatching(
					/^The service answered 403 "Token is not valid": The access token is unknown or expired/,
				),
			},
		],
		[
			'an IP address not on the allow-list',
			{ accessToken: seed.tokens.ipRestricted },
			{
				status: 'Error',
				message: expect.stringMatching(
					/^The service answered 403 "IP Not Whitelisted": This n8n server's IP address is not on the account's allow-list/,
				),
			},
		],
		[
			'payout APIs not enabled',
			{ accessToken: seed.tokens.apisDisabled },
			{
				status: 'Error',
				message: expect.stringMatching(
					/^The service answered 403 "APIs not enabled.*": Payout APIs are not enabled for this account/,
				),
			},
		],
		[
			'a Base URL with a path the service does not have',
			{ baseUrl: 'BASE/wrong' },
			{
				status: 'Error',
				message: expect.stringMatching(
					/^The Base URL does not answer as the payouts service: HTTP 404, Not Found\. .*Check 'Base URL'/,
				),
			},
		],
		[
			'a Base URL in clear text to another host',
			{ baseUrl: 'http://payouts.example.com' },
			{
				status: 'Error',
				message: expect.stringMatching(/^The credential's 'Base URL' must use https/),
			},
		],
	])('%s', async (_, change, expected) => {
		const data = Object.fromEntries(
			Object.entries(change).map(([key, value]) => [
				key,
				value.replace('BASE', service.sandbox.baseUrl),
			]),
		);
		const result = await testCredential(data);
		expect(result).toEqual(expected);
		expect(JSON.stringify(result)).not.toContain(data.accessToken ?? seed.credentials.accessToken);
	});

	test('the service answering HTTP 200 with an ERROR envelope fails too', async () => {
		service.sandbox.configure({ httpStyle: 'always200' });
		expect((await testCredential({ accessToken: seed.tokens.expired })).message).toMatch(
			/^The service answered 403 "Token is not valid"/,
		);
	});

	test('nothing listening at the Base URL', async () => {
		const closed = await new Promise<number>((resolve) => {
			const server = http.createServer().listen(0, '127.0.0.1', () => {
				const { port } = server.address() as { port: number };
				server.close(() => resolve(port));
			});
		});
		expect(await testCredential({ baseUrl: `http://127.0.0.1:${closed}` })).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^No answer from http:\/\/127\.0\.0\.1:\d+\/?: the service refused the connection/,
			),
		});
	});
});

describe('a Base URL that answers as something else than the service: nothing sent, found once per run', () => {
	/** A web server that answers every request with an HTML 404 page, and counts them. */
	async function webServer() {
		const seen: string[] = [];
		const server = http.createServer((request, response) => {
			seen.push(`${request.method} ${request.url}`);
			response
				.writeHead(404, { 'content-type': 'text/html' })
				.end('<html><body><h1>404 Not Found</h1></body></html>');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		return {
			url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
			seen,
			close: () => new Promise((resolve) => server.close(resolve)),
		};
	}
	const internal = (extra = {}) => ({
		type: 'payoutsTransfer',
		parameters: {
			operation: 'internalTransfer',
			amount: '={{ $json.amount }}',
			rechargeAccount: seed.rechargeAccounts.configured,
			additionalFields: { transferId: '={{ $json.transferId }}' },
			options: {},
		},
		...extra,
	});
	const rows = [1, 2, 3].map((i) => ({
		beneId: seed.beneficiaries.verified,
		amount: 100,
		transferId: `wrongbase_${i}`,
	}));

	test('the first answer stops the batch with an error, not UNKNOWN; the re-run with the right Base URL pays each row once', async () => {
		const web = await webServer();
		try {
			const { error } = await runNode(internal(), rows, service.credentials({ baseUrl: web.url }));
			expect(error?.message).toBe(
				'3 rows were not paid and need you; the first: The Base URL does not answer as the payouts service: HTTP 404, <html><body><h1>404 Not Found</h1></body></html> [item 0]',
			);
			expect(error?.description).toMatch(
				/^Nothing was sent to the payouts service.*Check 'Base URL'/,
			);
			expect(error?.context?.rows).toEqual(
				rows.map((_, item) =>
					expect.objectContaining({ item, status: 'ERROR', nextStep: 'runAgain' }),
				),
			);
			expect(web.seen).toEqual(['POST /payout/v1/internalTransfer']);
			// Nothing reached the service, so nothing is in doubt: the right Base URL pays every row.
			const { items } = await runNode(internal(), rows, service.credentials());
			expect(items.map((item) => item.json.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
		} finally {
			await web.close();
		}
	});

	test('under Continue On Fail every row says it was not paid and why, and only the first was sent', async () => {
		const web = await webServer();
		try {
			const { items } = await runNode(
				standardTransfer({}, { continueOnFail: true }),
				rows,
				service.credentials({ baseUrl: web.url }),
			);
			// The first row found it; the others were not sent, and say after what.
			expect(items.map((item) => [item.json.status, item.json.nextStep, item.json.error])).toEqual([
				[
					'ERROR',
					'runAgain',
					expect.stringMatching(
						/^The Base URL does not answer as the payouts service: HTTP 404, .*\[item 0\]$/,
					),
				],
				...[1, 2].map((i) => [
					'ERROR',
					'runAgain',
					expect.stringMatching(
						new RegExp(
							`^Not sent: the run stopped sending after "The Base URL does not answer as the payouts service: HTTP 404, .*" \\[item ${i}\\]$`,
						),
					),
				]),
			]);
			expect(web.seen).toHaveLength(1);
		} finally {
			await web.close();
		}
	});
});
