/**
 * The bearer token, the client secret, the card token and the cryptogram never appear in an
 * error, an output item or the run data n8n stores, whatever path the run takes.
 */
import { runNode, stopEngineTimers } from '../../harness/engine';
import { seed, useSandbox } from '../../harness/sandbox';

afterAll(stopEngineTimers);

const service = useSandbox();

const cryptogram = 'CRYPTOGRAM0123456789SECRETDATA';

/**
 * Card data comes from the input items, as from a spreadsheet. (A value typed into a parameter is
 * part of the workflow itself, which n8n stores as the user wrote it; it is not the node's output.)
 */
function cardNode(extra: Record<string, unknown> = {}) {
	return {
		type: 'payoutsTransfer',
		parameters: {
			operation: 'cardTransfer',
			token: '={{ $json.card }}',
			amount: '={{ $json.amount }}',
			transferId: '={{ "secret_test_" + $itemIndex }}',
			cardType: 'CREDIT',
			additionalFields: {
				networkType: 'NETWORK_B',
				cryptogram: '={{ $json.cryptogram }}',
				tokenExpiry: '2030-12',
			},
			...extra,
		},
	};
}

/**
 * Everything a run produces that a user, a log or the database could see: every node's output
 * and error, and the thrown error with its context and cause. (The workflow's own parameters are
 * the user's input, stored by n8n as the user typed them; they are not the node's output.)
 */
function everythingVisible(result: Awaited<ReturnType<typeof runNode>>) {
	const { error } = result;
	const errorParts = error
		? [
				error.message,
				error.description,
				error.stack,
				JSON.stringify(error.context ?? {}),
				JSON.stringify((error as { cause?: unknown }).cause ?? {}),
				JSON.stringify(error),
			]
		: [];
	return [JSON.stringify(result.run.data.resultData), ...errorParts].join('\n');
}

/** Not even in part: the whole value, and its first or last 12 characters (a cut-off excerpt). */
function expectNoSecrets(text: string, secrets: string[]) {
	for (const secret of secrets.flatMap((value) =>
		value.length > 12 ? [value, value.slice(0, 12), value.slice(-12)] : [value],
	)) {
		const at = text.indexOf(secret);
		expect(
			at === -1
				? 'not found'
				: `found: …${text.slice(Math.max(0, at - 120), at + secret.length + 20)}…`,
		).toBe('not found');
	}
}

const secrets = () => [
	seed.credentials.accessToken,
	seed.credentials.clientSecret,
	seed.cards.success1,
	seed.cards.fail1,
	cryptogram,
];

const paths: Array<[string, () => Promise<Awaited<ReturnType<typeof runNode>>>]> = [
	[
		'a successful card transfer',
		() =>
			runNode(
				cardNode(),
				[{ amount: '10', card: seed.cards.success1, cryptogram }],
				service.credentials(),
			),
	],
	[
		'a refused card (error item)',
		() =>
			runNode(
				{ ...cardNode(), continueOnFail: true },
				[{ amount: '10', card: seed.cards.fail1, cryptogram }],
				service.credentials(),
			),
	],
	[
		'a refused card (thrown)',
		() =>
			runNode(
				cardNode(),
				[{ amount: '10', card: seed.cards.fail1, cryptogram }],
				service.credentials(),
			),
	],
	[
		'a validation error',
		() =>
			runNode(
				cardNode(),
				[{ amount: '0.1', card: seed.cards.success1, cryptogram }],
				service.credentials(),
			),
	],
	[
		'a dry run',
		() =>
			runNode(
				cardNode({ options: { dryRun: true } }),
				[{ amount: '10', card: seed.cards.success1, cryptogram }],
				service.credentials(),
			),
	],
	[
		'an error page that echoes the request headers',
		async () => {
			service.sandbox.configure({
				faults: [
					{
						fault: 'replay',
						status: 500,
						body: `<html>Bearer ${seed.credentials.accessToken} token=${seed.cards.success1} ${cryptogram}</html>`,
					},
				],
			});
			return runNode(
				cardNode(),
				[{ amount: '10', card: seed.cards.success1, cryptogram }],
				service.credentials(),
			);
		},
	],
	[
		'a JSON error that echoes the secrets',
		async () => {
			service.sandbox.configure({
				faults: [
					{
						fault: 'replay',
						status: 422,
						body: JSON.stringify({
							status: 'ERROR',
							subCode: '422',
							message: `Please provide valid token details ${seed.cards.success1} ${cryptogram}`,
						}),
					},
				],
			});
			return runNode(
				cardNode(),
				[{ amount: '10', card: seed.cards.success1, cryptogram }],
				service.credentials(),
			);
		},
	],
	[
		'a dropped connection',
		() => {
			service.sandbox.configure({ faults: [{ fault: 'drop-after' }] });
			return runNode(
				cardNode(),
				[{ amount: '10', card: seed.cards.success1, cryptogram }],
				service.credentials(),
			);
		},
	],
	[
		'a timeout',
		() => {
			service.sandbox.configure({ faults: [{ fault: 'stall' }] });
			return runNode(
				cardNode({ options: { timeout: 1000 } }),
				[{ amount: '10', card: seed.cards.success1, cryptogram }],
				service.credentials(),
			);
		},
	],
	[
		'an invalid bearer token',
		() =>
			runNode(
				cardNode(),
				[{ amount: '10', card: seed.cards.success1, cryptogram }],
				service.credentials({ accessToken: seed.tokens.expired }),
			),
	],
	[
		'a refused OAuth client',
		async () => {
			const result = await runNode(
				{
					type: 'payoutsOAuth',
					parameters: { operation: 'generateToken', authCode: seed.authCodes[1] },
				},
				[{}],
				service.credentials({ clientSecret: 'wrong-client-secret-value' }),
			);
			expectNoSecrets(everythingVisible(result), ['wrong-client-secret-value']);
			return result;
		},
	],
	[
		'an OAuth token exchange',
		() =>
			runNode(
				{
					type: 'payoutsOAuth',
					parameters: { operation: 'generateToken', authCode: seed.authCodes[2] },
				},
				[{}],
				service.credentials(),
			),
	],
	...(
		[
			['bearer token', seed.credentials.accessToken],
			['card token', seed.cards.success1],
			['cryptogram', cryptogram],
		] as const
	).map(([name, secret]): [string, () => Promise<Awaited<ReturnType<typeof runNode>>>] => [
		`a long error page whose excerpt would cut through the ${name}`,
		async () => {
			service.sandbox.configure({
				faults: [
					{
						fault: 'replay',
						status: 502,
						contentType: 'text/html',
						body: `<html>${'x'.repeat(110)} ${secret} ${'y'.repeat(50)}</html>`,
					},
				],
			});
			return runNode(
				cardNode(),
				[{ amount: '10', card: seed.cards.success1, cryptogram }],
				service.credentials(),
			);
		},
	]),
	[
		'a card token and cryptogram with stray white space, echoed as sent (trimmed and JSON-escaped)',
		async () => {
			service.sandbox.configure({
				faults: [
					{
						fault: 'replay',
						status: 200,
						contentType: 'text/plain',
						body: `received ${JSON.stringify({ token: seed.cards.success1, cryptogram })}`,
					},
				],
			});
			return runNode(
				cardNode(),
				[{ amount: '10', card: `  ${seed.cards.success1}\t`, cryptogram: ` ${cryptogram} ` }],
				service.credentials(),
			);
		},
	],
	...(
		['/payout/v1/incidents', `/payout/v1/getBeneficiary/${seed.beneficiaries.hdfcBank}`] as const
	).map((path): [string, () => Promise<Awaited<ReturnType<typeof runNode>>>] => [
		`the Incident Guard, when ${path.includes('incidents') ? 'the incident listing' : 'the beneficiary lookup'} is refused with the token in its message`,
		async () => {
			service.sandbox.configure({
				faults: [
					{
						fault: 'replay',
						match: { path },
						status: 403,
						body: JSON.stringify({
							status: 'ERROR',
							subCode: '403',
							message: `Token is not valid: Bearer ${seed.credentials.accessToken}`,
						}),
					},
				],
			});
			const guarded = {
				type: 'payoutsTransfer',
				parameters: {
					operation: 'standardTransfer',
					beneId: seed.beneficiaries.hdfcBank,
					amount: '10',
					transferId: 'secret_guard_1',
					transferMode: 'imps',
					additionalFields: {},
					options: { incidentGuard: { settings: { lookBackDays: 1 } } },
				},
			};
			const result = await runNode(guarded, [{}], service.credentials());
			expect(String(result.error?.message)).toMatch(
				/^The Incident Guard could not check the item: .*Token is not valid/,
			);
			return result;
		},
	]),
	[
		'plain http to a remote host',
		() =>
			runNode(
				cardNode(),
				[{ amount: '10', card: seed.cards.success1, cryptogram }],
				service.credentials({ baseUrl: 'http://payouts.example.com' }),
			),
	],
];

test.each(paths)('%s leaves no secret behind', async (_, run) => {
	const result = await run();
	expectNoSecrets(everythingVisible(result), secrets());
});

test('a dry run masks the card token and cryptogram but shows the rest of the exact request', async () => {
	const { items } = await runNode(
		cardNode({ options: { dryRun: true } }),
		[{ amount: '10', card: seed.cards.success1, cryptogram }],
		service.credentials(),
	);
	// What a real run would do (realRun) is exactlyOnce.test's; here, the request as shown.
	const { realRun, ...shown } = items[0].json;
	expect(shown).toEqual({
		dryRun: true,
		method: 'POST',
		url: `${service.sandbox.baseUrl}/payout/v1/cardpay`,
		body: {
			token: '***',
			amount: '10',
			transferId: 'secret_test_0',
			cardType: 'CREDIT',
			networkType: 'NETWORK_B',
			cryptogram: '***',
			tokenExpiry: '2030-12',
		},
	});
	expect(JSON.stringify(realRun ?? '')).not.toMatch(
		new RegExp(`${seed.cards.success1}|${cryptogram}`),
	);
	expect(service.sandbox.requests()).toEqual([]);
});
