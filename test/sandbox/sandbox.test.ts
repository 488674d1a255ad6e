/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The sandbox over real HTTP: money moves once, defaults and window rules hold, faults do what
 * they say, and bad input never crashes or hangs it. The trigger table (every row of the
 * document's error tables) is tested in triggers.test.ts.
 */
import net from 'node:net';

import { seed, startSandbox, triggers } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

type Trigger = (typeof triggers)[number];

async function send(
	sandbox: Sandbox,
	request: Trigger['request'],
	extraHeaders: Record<string, string> = {},
) {
	const url = new URL(request.path, sandbox.baseUrl);
	for (const [key, value] of Object.entries(request.query ?? {}))
		url.searchParams.set(key, String(value));
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		...request.headers,
		...extraHeaders,
	};
	if (request.token !== null && !request.path.startsWith('/verification'))
		headers.authorization = `Bearer ${request.token ?? seed.credentials.accessToken}`;
	const response = await fetch(url, {
		method: request.method,
		headers,
		body: request.body ? JSON.stringify(request.body) : undefined,
	});
	const text = await response.text();
	let body: Record<string, unknown> | undefined;
	try {
		body = JSON.parse(text);
	} catch {
		body = undefined;
	}
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		text,
		body,
	};
}

describe('the service', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox();
	});
	afterAll(() => sandbox.close());
	beforeEach(() => sandbox.reset());

	const transfer = (transferId: string, amount = 150) => ({
		method: 'POST',
		path: '/payout/v1.2/requestTransfer',
		body: { beneId: seed.beneficiaries.verified, amount, transferId },
	});

	test('a transfer moves the balance once; the same transferId again moves nothing', async () => {
		const before = sandbox.state().balances.main;
		expect((await send(sandbox, transfer('once_only_1'))).body?.status).toBe('SUCCESS');
		expect((await send(sandbox, transfer('once_only_1'))).body?.message).toBe(
			'Transfer Id already exists',
		);
		expect(sandbox.state().balances.main).toBeCloseTo(before - 150, 2);
		expect(sandbox.state().transfers).toHaveLength(1);
	});

	test("a card transfer's 200 is declared text/plain; its data has the document's fields", async () => {
		const answer = await send(sandbox, {
			method: 'POST',
			path: '/payout/v1/cardpay',
			body: {
				token: seed.cards.success1,
				amount: '12.50',
				transferId: 'card_ct_1',
				cardType: 'CREDIT',
			},
		});
		expect(answer.contentType).toMatch(/^text\/plain/);
		expect(answer.body?.data).toEqual({
			referenceId: expect.any(String),
			utr: expect.any(String),
			acknowledged: 1,
		});
	});

	test('defaults: cardType CREDIT, transferMode banktransfer, incidents UNRESOLVED of today', async () => {
		await send(sandbox, {
			method: 'POST',
			path: '/payout/v1/cardpay',
			body: { token: seed.cards.success2, amount: '5', transferId: 'card_default_1', cardType: '' },
		});
		await send(sandbox, transfer('std_default_1'));
		expect(
			sandbox.state().transfers.map((record) => record.cardType ?? record.transferMode),
		).toEqual(['CREDIT', 'banktransfer']);
		const listed = await send(sandbox, { method: 'GET', path: '/payout/v1/incidents' });
		const incidents = (
			listed.body?.data as { incidents: Array<{ isResolved: boolean; createdAt: string }> }
		).incidents;
		expect(incidents.length).toBeGreaterThan(0);
		const today = new Date().toISOString().slice(0, 10);
		expect(
			incidents.every((incident) => !incident.isResolved && incident.createdAt.startsWith(today)),
		).toBe(true);
	});

	test('incidents: the paylink and incident query parameters, a 7-day window within 90 days', async () => {
		const day = (days: number) => new Date(Date.now() - days * 86400000).toISOString().slice(0, 10);
		const week = await send(sandbox, {
			method: 'GET',
			path: '/payout/v1/incidents',
			query: {
				status: 'ALL',
				startTime: `${day(6)} 00:00:00`,
				endTime: `${day(0)} 23:59:59`,
				entityCode: 'HDFC',
			},
		});
		const incidents = (week.body?.data as { incidents: Array<{ entityCode: string }> }).incidents;
		expect(incidents.length).toBeGreaterThan(0);
		expect(incidents.every((incident) => incident.entityCode === 'HDFC')).toBe(true);
		const old = await send(sandbox, {
			method: 'GET',
			path: '/payout/v1/incidents',
			query: { startTime: `${day(91)} 00:00:00`, endTime: `${day(88)} 00:00:00` },
		});
		expect(old.body?.subCode).toBe('422');
	});

	test('an OAuth code works once', async () => {
		const request = triggers.find((row) => row.id === 'token-200')!.request;
		expect((await send(sandbox, request)).status).toBe(200);
		expect((await send(sandbox, request)).body?.message).toMatch(/invalid or already used/);
	});

	test('authentication: no header 412, a header without Bearer 412, an unknown token 403, on every payout path', async () => {
		const paths = [
			'/payout/v1/cardpay',
			'/payout/v1.2/requestTransfer',
			'/payout/v1/internalTransfer',
		];
		for (const path of paths) {
			expect(
				(await send(sandbox, { method: 'POST', path, body: {}, token: null })).body,
			).toMatchObject({ status: 'ERROR', subCode: '412' });
			expect(
				(
					await send(
						sandbox,
						{ method: 'POST', path, body: {}, token: null },
						{ authorization: seed.credentials.accessToken },
					)
				).body?.subCode,
			).toBe('412');
			expect(
				(await send(sandbox, { method: 'POST', path, body: {}, token: 'no-such-token' })).body,
			).toMatchObject({ subCode: '403', message: 'Token is not valid' });
		}
		expect(
			(
				await send(sandbox, {
					method: 'GET',
					path: `/payout/v1/getPaylinkStatus`,
					query: { paylinkId: seed.paylinks.active },
					token: null,
				})
			).status,
		).toBe(412);
		// The token endpoint does not use the bearer token.
		const tokenRow = triggers.find((row) => row.id === 'token-200')!.request;
		expect((await send(sandbox, { ...tokenRow, token: 'whatever' })).status).toBe(200);
	});

	test("field rules the document states without an error row answer 422 with the sandbox's own message", async () => {
		const card = (body: Record<string, unknown>) =>
			send(sandbox, {
				method: 'POST',
				path: '/payout/v1/cardpay',
				body: {
					token: seed.cards.success1,
					amount: '10.00',
					transferId: 'card_rule_1',
					cardType: 'DEBIT',
					...body,
				},
			});
		const cases: Array<[string, Record<string, unknown>]> = [
			['remarks', { remarks: 'x'.repeat(71) }],
			['remarks', { remarks: 'no-hyphens!' }],
			['cryptogram', { networkType: 'NETWORK_B', cryptogram: 'c'.repeat(601) }],
			['tokenExpiry', { networkType: 'NETWORK_B', tokenExpiry: '2030/12' }],
			['tokenExpiry', { networkType: 'NETWORK_B', tokenExpiry: null }],
			['tokenPANSequenceNumber', { tokenPANSequenceNumber: '1234' }],
			['transferId', { transferId: 'a'.repeat(41) }],
			['amount', { amount: 10 }],
		];
		for (const [field, body] of cases) {
			const answer = await card(body);
			expect({ field, body: answer.body }).toMatchObject({
				field,
				body: {
					status: 'ERROR',
					subCode: '422',
					message: expect.stringContaining(`${field} is invalid`),
				},
			});
		}
		// Accepted edge values: 70 characters of remarks, 600 of cryptogram, YYYY-MM with NETWORK_B, 3-character PAN sequence.
		const edge = await card({
			remarks: 'a'.repeat(70),
			networkType: 'NETWORK_B',
			cryptogram: 'c'.repeat(600),
			tokenExpiry: '2030-12',
			tokenPANSequenceNumber: 'A01',
			transferId: 'a'.repeat(40),
		});
		expect(edge.body?.status).toBe('SUCCESS');
		// Standard and internal amounts are JSON numbers: a numeric string is refused.
		expect(
			(await send(sandbox, transfer('std_string_amount', '150' as unknown as number))).body,
		).toMatchObject({ subCode: '422' });
		expect(
			(
				await send(sandbox, {
					method: 'POST',
					path: '/payout/v1.2/requestTransfer',
					body: {
						beneId: seed.beneficiaries.verified,
						amount: 150,
						transferId: 'std_mode_1',
						transferMode: 'swift',
					},
				})
			).body?.message,
		).toMatch(/transferMode is invalid/);
		expect(sandbox.state().count).toBe(1);
	});

	test('internal transfer: generates a transferId when absent; the recharge account is credited once', async () => {
		const answer = await send(sandbox, {
			method: 'POST',
			path: '/payout/v1/internalTransfer',
			body: { amount: 25, rechargeAccount: seed.rechargeAccounts.configured },
		});
		expect(answer.body).toMatchObject({
			status: 'SUCCESS',
			subCode: '200',
			data: { transferId: expect.any(String) },
		});
		expect(answer.body?.message).toMatch(/Internal Fund Transfer/);
		expect(sandbox.state().rechargeBalances[seed.rechargeAccounts.configured]).toBe(25);
		expect(
			(
				await send(sandbox, {
					method: 'POST',
					path: '/payout/v1/internalTransfer',
					body: { amount: 0.5, rechargeAccount: seed.rechargeAccounts.configured },
				})
			).body?.subCode,
		).toBe('422');
		// Numbers JSON writes in exponent form are not plain decimals: refused, nothing moves.
		for (const amount of [1e21, 1e300]) {
			expect(
				(
					await send(sandbox, {
						method: 'POST',
						path: '/payout/v1/internalTransfer',
						body: { amount, rechargeAccount: seed.rechargeAccounts.configured },
					})
				).body?.subCode,
			).toBe('422');
		}
		expect(sandbox.state().balances.main).toBe(10000000 - 25);
	});

	test('the incident window: exactly 7 days passes, 7 days and 1 second does not, start after end, format', async () => {
		const day = (days: number) => new Date(Date.now() - days * 86400000).toISOString().slice(0, 10);
		const list = (query: Record<string, string>) =>
			send(sandbox, { method: 'GET', path: '/payout/v1/incidents', query });
		expect(
			(await list({ startTime: `${day(8)} 00:00:00`, endTime: `${day(1)} 00:00:00` })).body
				?.subCode,
		).toBe('200');
		expect(
			(await list({ startTime: `${day(8)} 00:00:00`, endTime: `${day(1)} 00:00:01` })).body
				?.message,
		).toMatch(/^Maximum time difference/);
		expect(
			(await list({ startTime: `${day(1)} 00:00:01`, endTime: `${day(1)} 00:00:00` })).body
				?.message,
		).toMatch(/^startTime should be less than/);
		expect((await list({ startTime: `${day(1)}T00:00:00` })).body?.message).toMatch(
			/^startTime should be of the format/,
		);
		expect((await list({ status: 'resolved' })).body?.message).toBe('Status is invalid');
		const resolved = await list({
			status: 'RESOLVED',
			startTime: `${day(6)} 00:00:00`,
			endTime: `${day(0)} 23:59:59`,
		});
		const incidents = (
			resolved.body?.data as {
				incidents: Array<{ isResolved: boolean; createdAt: string; resolvedAt: string }>;
			}
		).incidents;
		expect(incidents.length).toBeGreaterThan(0);
		for (const incident of incidents) {
			expect(incident.isResolved).toBe(true);
			expect(incident.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
		}
	});

	test('reset restores balances, used transferIds and auth codes, faults, style and the log', async () => {
		sandbox.configure({
			httpStyle: 'always200',
			faults: [{ fault: 'error-520', match: { transferId: 'x' } }],
			latencyMs: 5,
		});
		await send(sandbox, transfer('reset_1'));
		await send(sandbox, triggers.find((row) => row.id === 'token-200')!.request);
		sandbox.reset();
		expect(sandbox.state()).toMatchObject({ transfers: [], count: 0, usedAuthCodes: [] });
		expect(sandbox.state().balances.main).toBe(10000000);
		expect(sandbox.requests()).toEqual([]);
		expect((await send(sandbox, transfer('reset_1'))).body?.status).toBe('SUCCESS');
		expect((await send(sandbox, transfer('x'))).body?.status).toBe('SUCCESS');
		expect(
			(
				await send(sandbox, {
					method: 'GET',
					path: `/payout/v1/getBeneficiary/${seed.unknownBeneId}`,
				})
			).status,
		).toBe(404);
		expect(() => sandbox.configure({ httpStyle: 'sometimes' as 'mirror' })).toThrow();
		expect(() => sandbox.configure({ faults: [{ fault: 'gremlins' }] })).toThrow();
	});

	test('a whole-run latency delays every request', async () => {
		sandbox.configure({ latencyMs: 60 });
		const started = Date.now();
		await Promise.all([send(sandbox, transfer('lat_1')), send(sandbox, transfer('lat_2'))]);
		expect(Date.now() - started).toBeGreaterThanOrEqual(55);
	});

	describe('faults', () => {
		test('drop-after: the transfer happens, the client gets no answer', async () => {
			sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
			await expect(send(sandbox, transfer('dropped_after_1'))).rejects.toThrow();
			expect(sandbox.state().transfers.map((record) => record.transferId)).toEqual([
				'dropped_after_1',
			]);
		});

		test('drop-before: nothing happens', async () => {
			await expect(
				send(sandbox, transfer('dropped_before_1'), { 'x-sandbox-fault': 'drop-before' }),
			).rejects.toThrow();
			expect(sandbox.state().transfers).toEqual([]);
		});

		test('html-500, error-520, malformed-json and empty-body answer as named', async () => {
			expect(await send(sandbox, transfer('f1'), { 'x-sandbox-fault': 'html-500' })).toMatchObject({
				status: 502,
				contentType: expect.stringMatching(/text\/html/),
			});
			expect(
				(await send(sandbox, transfer('f2'), { 'x-sandbox-fault': 'error-520' })).body,
			).toMatchObject({ status: 'ERROR', subCode: '520' });
			const malformed = await send(sandbox, transfer('f3'), {
				'x-sandbox-fault': 'malformed-json',
			});
			expect(malformed.body).toBeUndefined();
			expect(malformed.text.startsWith('{')).toBe(true);
			expect((await send(sandbox, transfer('f4'), { 'x-sandbox-fault': 'empty-body' })).text).toBe(
				'',
			);
			expect(sandbox.state().transfers.map((record) => record.transferId)).toEqual(['f3', 'f4']);
		});

		test('chaos: seeded faults on transfer requests only; one seed, one sequence; counted, and restarted by reset', async () => {
			const outcomes = async () => {
				const seen: string[] = [];
				for (let index = 0; index < 60; index++) {
					const answer = await send(sandbox, transfer(`chaos_${index}`)).catch(() => undefined);
					seen.push(answer ? `${answer.status}` : 'dropped');
				}
				return seen;
			};
			sandbox.configure({ chaos: { seed: 7, rate: 0.5 } });
			const first = await outcomes();
			const { faultsInjected } = sandbox.state();
			const injected = Object.values(faultsInjected).reduce((sum, count) => sum + (count ?? 0), 0);
			expect(injected).toBeGreaterThan(15);
			expect(injected).toBeLessThan(45);
			expect(first.filter((status) => status === '200')).toHaveLength(60 - injected);
			// Every kind a standard transfer can meet came up, and reads are never touched.
			expect(Object.keys(faultsInjected).sort()).toEqual([
				'drop-after',
				'drop-before',
				'error-500',
				'error-520',
				'html-502',
				'no-bank-response',
			]);
			expect(
				(
					await send(sandbox, {
						method: 'GET',
						path: `/payout/v1/getBeneficiary/${seed.beneficiaries.verified}`,
					})
				).status,
			).toBe(200);
			// The same seed after a reset: the same answers in the same order.
			sandbox.reset();
			sandbox.configure({ chaos: { seed: 7, rate: 0.5 } });
			expect(await outcomes()).toEqual(first);
			expect(() => sandbox.configure({ chaos: { seed: 7, rate: 2 } })).toThrow(/rate/);
			expect(() =>
				sandbox.configure({ chaos: { seed: 7, rate: 0.1, kinds: ['gremlins' as never] } }),
			).toThrow(/unknown chaos kind gremlins/);
			sandbox.configure({ chaos: null });
			expect((await send(sandbox, transfer('calm_1'))).status).toBe(200);
		});

		test('no-bank-response: 201 ERROR, booked unless told not to', async () => {
			expect(
				(await send(sandbox, transfer('nbr_1'), { 'x-sandbox-fault': 'no-bank-response' })).body,
			).toMatchObject({
				status: 'ERROR',
				subCode: '201',
				message: 'Transfer request the service, no response from bank',
			});
			sandbox.configure({ faults: [{ fault: 'no-bank-response', books: false, times: 1 }] });
			expect((await send(sandbox, transfer('nbr_2'))).status).toBe(201);
			expect(sandbox.state().transfers.map((record) => record.transferId)).toEqual(['nbr_1']);
		});

		test('html-500 takes status 500 or 503 from the header; an unknown fault name is refused, not ignored', async () => {
			const outage = await send(sandbox, transfer('f5'), {
				'x-sandbox-fault': 'html-500;status=503',
			});
			expect(outage.status).toBe(503);
			expect(outage.text).toMatch(/<title>503 Service Unavailable<\/title>/);
			const unknown = await send(sandbox, transfer('f6'), { 'x-sandbox-fault': 'gremlins' });
			expect(unknown.body).toMatchObject({
				status: 'ERROR',
				subCode: '422',
				message: expect.stringMatching(/^Unknown x-sandbox-fault.*gremlins/),
			});
			expect(sandbox.state().transfers).toEqual([]);
		});

		test('latency by header, and a rule that matches one transferId only', async () => {
			sandbox.configure({ faults: [{ fault: 'error-520', match: { transferId: 'only_this' } }] });
			expect((await send(sandbox, transfer('not_this'))).body?.status).toBe('SUCCESS');
			expect((await send(sandbox, transfer('only_this'))).body?.subCode).toBe('520');
			const started = Date.now();
			await send(sandbox, transfer('slow_1'), { 'x-sandbox-fault': 'latency;latencyMs=150' });
			expect(Date.now() - started).toBeGreaterThanOrEqual(140);
		});

		test('stall: headers and half a body, then nothing until the client gives up; close() is prompt', async () => {
			const stalled = await startSandbox({ faults: [{ fault: 'stall' }] });
			const controller = new AbortController();
			const timer = setTimeout(() => controller.abort(), 300);
			const response = await fetch(`${stalled.baseUrl}/payout/v1.2/requestTransfer`, {
				method: 'POST',
				headers: { authorization: `Bearer ${seed.credentials.accessToken}` },
				body: JSON.stringify({
					beneId: seed.beneficiaries.verified,
					amount: 10,
					transferId: 'stall_1',
				}),
				signal: controller.signal,
			});
			await expect(response.text()).rejects.toThrow();
			clearTimeout(timer);
			const hanging = fetch(`${stalled.baseUrl}/payout/v1.2/requestTransfer`, {
				method: 'POST',
				headers: { authorization: `Bearer ${seed.credentials.accessToken}` },
				body: JSON.stringify({
					beneId: seed.beneficiaries.verified,
					amount: 10,
					transferId: 'stall_2',
				}),
			})
				.then((answer) => answer.text())
				.catch(() => 'closed');
			await new Promise((resolve) => setTimeout(resolve, 100));
			const closing = Date.now();
			await stalled.close();
			expect(Date.now() - closing).toBeLessThan(2000);
			await hanging;
		});
	});

	describe('bad input to the sandbox itself', () => {
		test('a body that is not JSON, wrong types, an oversized body, an unknown path', async () => {
			const auth = { authorization: `Bearer ${seed.credentials.accessToken}` };
			const notJson = await fetch(`${sandbox.baseUrl}/payout/v1.2/requestTransfer`, {
				method: 'POST',
				headers: { ...auth, 'content-type': 'application/json' },
				body: '{"beneId": ',
			});
			expect(notJson.status).toBe(422);
			expect(await notJson.json()).toMatchObject({ status: 'ERROR', subCode: '422' });
			const wrongTypes = await send(sandbox, {
				method: 'POST',
				path: '/payout/v1.2/requestTransfer',
				body: { beneId: 42, amount: 'lots', transferId: ['x'] },
			});
			expect(wrongTypes.body).toMatchObject({ status: 'ERROR', subCode: '422' });
			const huge = await fetch(`${sandbox.baseUrl}/payout/v1/cardpay`, {
				method: 'POST',
				headers: { ...auth, 'content-type': 'application/json' },
				body: JSON.stringify({ token: 'x'.repeat(2 * 1024 * 1024) }),
			});
			expect(huge.status).toBe(422);
			expect(await huge.json()).toMatchObject({
				status: 'ERROR',
				subCode: '422',
				message: expect.stringMatching(/too large/),
			});
			const unknown = await fetch(`${sandbox.baseUrl}/payout/v9/nothing`);
			expect(unknown.status).toBe(404);
			expect(sandbox.state().transfers).toEqual([]);
		});

		test('a raw socket that sends garbage does not take it down', async () => {
			const reply = await new Promise<string>((resolve) => {
				let received = '';
				const socket = net.connect(Number(new URL(sandbox.baseUrl).port), '127.0.0.1', () =>
					socket.write('NOT HTTP AT ALL\r\n\r\n'),
				);
				socket.on('data', (chunk) => {
					received += chunk;
					socket.destroy();
				});
				socket.on('close', () => resolve(received));
				socket.on('error', () => resolve(received));
			});
			expect(reply).toMatch(/^HTTP\/1\.1 400/);
			expect((await send(sandbox, transfer('after_garbage'))).body?.status).toBe('SUCCESS');
		});
	});

	test('500 concurrent requests, all answered, money moved exactly once each', async () => {
		const answers = await Promise.all(
			Array.from({ length: 500 }, (_, index) => send(sandbox, transfer(`load_${index}`, 1))),
		);
		expect(answers.filter((answer) => answer.body?.status === 'SUCCESS')).toHaveLength(500);
		expect(sandbox.state().transfers).toHaveLength(500);
	});

	test('the inspection interface over HTTP: requests, state, config, reset', async () => {
		await send(sandbox, transfer('inspect_1'));
		const log = (await (await fetch(`${sandbox.baseUrl}/__sandbox/requests`)).json()) as unknown[];
		expect(log).toEqual([
			expect.objectContaining({
				method: 'POST',
				path: '/payout/v1.2/requestTransfer',
				body: expect.objectContaining({ transferId: 'inspect_1' }),
				headers: expect.objectContaining({ authorization: expect.any(String) }),
			}),
		]);
		expect(
			(
				(await (await fetch(`${sandbox.baseUrl}/__sandbox/state`)).json()) as {
					transfers: unknown[];
				}
			).transfers,
		).toHaveLength(1);
		await fetch(`${sandbox.baseUrl}/__sandbox/config`, {
			method: 'POST',
			body: JSON.stringify({ httpStyle: 'always200' }),
		});
		expect(
			(
				await send(sandbox, {
					method: 'GET',
					path: `/payout/v1/getBeneficiary/${seed.unknownBeneId}`,
				})
			).status,
		).toBe(200);
		await fetch(`${sandbox.baseUrl}/__sandbox/reset`, { method: 'POST' });
		expect(sandbox.requests()).toEqual([]);
		expect(sandbox.state().transfers).toEqual([]);
		expect(
			(
				await send(sandbox, {
					method: 'GET',
					path: `/payout/v1/getBeneficiary/${seed.unknownBeneId}`,
				})
			).status,
		).toBe(404);
	});

	test('the zone incident windows are read in: set over HTTP, refused when unknown, back to the start value on reset', async () => {
		const config = (body: unknown) =>
			fetch(`${sandbox.baseUrl}/__sandbox/config`, { method: 'POST', body: JSON.stringify(body) });
		// KKBK has no seeded incidents: seeded ones fall on today's UTC clock and may be in the last hour.
		const opened = sandbox.openIncident({ entityCode: 'KKBK', mode: 'UPI' });
		// The last hour as a clock in the given zone reads it (yyyy-mm-dd hh:mm:ss, no zone).
		const offsetMinutes = { UTC: 0, 'UTC+5:30': 330 };
		const lastHourIn = (zone: keyof typeof offsetMinutes) => {
			const now = Date.now();
			const clock = (millis: number) =>
				new Date(millis + offsetMinutes[zone] * 60000).toISOString().slice(0, 19).replace('T', ' ');
			return {
				status: 'ALL',
				entityCode: 'KKBK',
				startTime: clock(now - 3600000),
				endTime: clock(now + 60000),
			};
		};
		const listed = async (zone: keyof typeof offsetMinutes) =>
			(
				(
					await send(sandbox, {
						method: 'GET',
						path: '/payout/v1/incidents',
						query: lastHourIn(zone),
					})
				).body?.data as { incidents: Array<{ id: number }> }
			).incidents.map((incident) => incident.id);

		expect(await listed('UTC')).toEqual([opened.id]);
		expect((await config({ timezone: 'UTC+5:30' })).status).toBe(200);
		// UTC's clock read as +05:30 is five and a half hours earlier: the incident is not in that hour.
		expect(await listed('UTC')).toEqual([]);
		expect(await listed('UTC+5:30')).toEqual([opened.id]);
		expect((await config({ timezone: 'Mars/Olympus' })).status).toBe(400);
		expect(() => sandbox.configure({ timezone: '+05:30' })).toThrow(/IANA zone/);
		expect(await listed('UTC+5:30')).toEqual([opened.id]);
		sandbox.reset();
		const again = sandbox.openIncident({ entityCode: 'KKBK', mode: 'UPI' });
		expect(await listed('UTC')).toEqual([again.id]);
	});

	test('incidents opened and resolved for a bank and mode over HTTP; seeded beneficiaries bank where seeded incidents are', async () => {
		const control = (route: string, body: unknown) =>
			fetch(`${sandbox.baseUrl}/__sandbox/incidents${route}`, {
				method: 'POST',
				body: JSON.stringify(body),
			});
		const listOpen = async (entityCode: string) =>
			(
				(
					await send(sandbox, {
						method: 'GET',
						path: '/payout/v1/incidents',
						query: { status: 'UNRESOLVED', entityCode },
					})
				).body?.data as { incidents: Array<{ id: number; mode: string }> }
			).incidents;
		const opened = (await (
			await control('', { entityCode: 'SBIN', mode: 'UPI', impact: 'HIGH' })
		).json()) as { id: number; entityName: string; isResolved: boolean };
		expect(opened).toMatchObject({ entityName: 'State Bank of India', isResolved: false });
		expect((await listOpen('SBIN')).map((incident) => incident.id)).toEqual([opened.id]);
		const resolved = (await (
			await control('/resolve', { entityCode: 'SBIN', mode: 'UPI' })
		).json()) as Array<{ id: number; isResolved: boolean }>;
		expect(resolved).toEqual([expect.objectContaining({ id: opened.id, isResolved: true })]);
		expect(await listOpen('SBIN')).toEqual([]);
		expect((await control('/resolve', {})).status).toBe(400);
		expect((await control('/resolve', { id: opened.id })).status).toBe(400);
		expect((await control('', [1])).status).toBe(400);

		for (const { incidentId, entityCode, mode, beneId } of Object.values(seed.incidentBanks)) {
			const incident = (
				await send(sandbox, {
					method: 'GET',
					path: '/payout/v1/incidents',
					query: { status: 'ALL', entityCode },
				})
			).body?.data as { incidents: Array<{ id: number; mode: string; entityCode: string }> };
			expect(incident.incidents.find((candidate) => candidate.id === incidentId)).toMatchObject({
				mode,
				entityCode,
			});
			const beneficiary = (
				await send(sandbox, { method: 'GET', path: `/payout/v1/getBeneficiary/${beneId}` })
			).body?.data as { ifsc: string };
			expect(beneficiary.ifsc.slice(0, 4)).toBe(entityCode);
		}
	});

	test('a paylink paid or expired over HTTP: the status lookup answers its new status; an unknown id creates one; reset restores the seed', async () => {
		const control = (body: unknown) =>
			fetch(`${sandbox.baseUrl}/__sandbox/paylinks`, {
				method: 'POST',
				body: JSON.stringify(body),
			});
		const lookUp = async (paylinkId: string) =>
			(
				await send(sandbox, {
					method: 'GET',
					path: '/payout/v1/getPaylinkStatus',
					query: { paylinkId },
				})
			).body?.data;
		const paid = (await (
			await control({ paylinkId: seed.paylinks.active, paylinkStatus: 'PAID' })
		).json()) as Record<string, unknown>;
		expect(paid).toEqual({
			paylinkId: seed.paylinks.active,
			paylinkStatus: 'PAID',
			referenceId: 880011,
			paylinkLink: 'https://payouts.example.com/paylink/paylink_active_1',
		});
		expect(await lookUp(seed.paylinks.active)).toEqual(paid);
		const created = (await (await control({ paylinkId: 'PAYLINK_NEW_7' })).json()) as Record<
			string,
			unknown
		>;
		expect(created).toEqual({
			paylinkId: 'PAYLINK_NEW_7',
			paylinkStatus: 'ACTIVE',
			referenceId: 880014,
			paylinkLink: 'https://payouts.example.com/paylink/paylink_new_7',
		});
		expect(
			sandbox.setPaylink({ paylinkId: 'PAYLINK_NEW_7', paylinkStatus: 'EXPIRED' }),
		).toMatchObject({ paylinkStatus: 'EXPIRED', referenceId: 880014 });
		expect((await control({ paylinkStatus: 'PAID' })).status).toBe(400);
		expect((await control([1])).status).toBe(400);
		sandbox.reset();
		expect(await lookUp(seed.paylinks.active)).toMatchObject({ paylinkStatus: 'ACTIVE' });
		expect(
			(
				await send(sandbox, {
					method: 'GET',
					path: '/payout/v1/getPaylinkStatus',
					query: { paylinkId: 'PAYLINK_NEW_7' },
				})
			).status,
		).toBe(404);
	});

	test("the dashboard's CSV export lists every booked transfer once, with its status; refused ones are not there", async () => {
		await send(sandbox, transfer('dash_1', 150));
		await send(sandbox, transfer('dash_1', 150));
		await send(sandbox, {
			method: 'POST',
			path: '/payout/v1.2/requestTransfer',
			body: { beneId: seed.beneficiaries.pendingAtBank, amount: 2, transferId: 'dash_2' },
		});
		await send(sandbox, {
			method: 'POST',
			path: '/payout/v1.2/requestTransfer',
			body: { beneId: seed.unknownBeneId, amount: 2, transferId: 'dash_refused' },
		});
		const response = await fetch(`${sandbox.baseUrl}/__sandbox/dashboard.csv`);
		expect(response.headers.get('content-type')).toMatch(/text\/csv/);
		const lines = (await response.text()).split('\r\n');
		expect(lines[0]).toBe('Transfer ID,Status,Amount,Reference ID,Type,Payee');
		expect(lines.slice(1).map((line) => line.split(',').slice(0, 3))).toEqual([
			['dash_1', 'SUCCESS', '150.00'],
			['dash_2', 'PENDING', '2.00'],
		]);
	});
});
