/**
 * Every row of the interface document's error tables, end to end: the sandbox answers the row,
 * the node turns it into an error whose message is the service's (with the item), whose
 * description is the row's hint and whose httpCode is the subCode, in both HTTP styles.
 *
 * Rows whose request the node itself refuses (a rule it checks before sending) are proven twice:
 * the node refuses the request and sends nothing; and when the service answers that row anyway
 * (replayed to a valid request), the node maps it like any other.
 */
import type { IDataObject } from 'n8n-workflow';

import { errorRows, findErrorRow } from '../../nodes/shared/outcomes/errors';
import { runNode, stopEngineTimers } from '../../harness/engine';
import { seed, triggers, useSandbox } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';
import { credentialChangesFor, nodeFor, operationsByApi } from '../helpers/triggers';
import type { TriggerRow } from '../helpers/triggers';

afterAll(stopEngineTimers);

const errorTriggers = (triggers as TriggerRow[]).filter((row) => row.status === 'ERROR');

/** A request each operation's node accepts, to which a replayed answer is given. */
const validRequest: Record<string, () => TriggerRow> = Object.fromEntries(
	Object.keys(operationsByApi).map((operation) => [
		operation,
		() => {
			const success = (triggers as TriggerRow[]).find(
				(row) => row.operation === operation && row.status !== 'ERROR',
			);
			if (!success) throw new Error(`no success trigger for ${operation}`);
			return success;
		},
	]),
);

/** The answer the sandbox really gives to a row's request, as raw HTTP. */
async function rawAnswer(sandbox: Sandbox, row: TriggerRow) {
	const { method, path, query, body, token, headers } = row.request;
	const url = new URL(
		path,
		row.operation === 'generateToken' ? sandbox.verificationUrl : sandbox.baseUrl,
	);
	for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, String(value));
	const sent: Record<string, string> = { 'content-type': 'application/json', ...headers };
	if (token !== null && row.operation !== 'generateToken')
		sent.authorization = `Bearer ${token ?? seed.credentials.accessToken}`;
	const response = await fetch(url, {
		method,
		headers: sent,
		body: body ? JSON.stringify(body) : undefined,
	});
	return { httpStatus: response.status, body: await response.text() };
}

test("every error row the sandbox can answer has its own row in the node's error table", () => {
	for (const row of errorTriggers.filter((trigger) => trigger.operation !== 'generateToken')) {
		const found = findErrorRow(row.operation, row.subCode, row.message);
		expect({ trigger: row.id, matched: errorRows.includes(found) }).toEqual({
			trigger: row.id,
			matched: true,
		});
	}
});

describe.each(['mirror', 'always200'] as const)('HTTP style %s', (httpStyle) => {
	const service = useSandbox({ httpStyle });

	test.each(errorTriggers.map((row) => [row.id, row] as const))('%s', async (_, row) => {
		if (/transfer id already exists/i.test(row.message)) {
			// This node never sent a transfer with this Transfer ID: ALREADY_EXISTS, which needs a person,
			// stops the run as an error does (never a successful run the next step takes for paid).
			const direct = await runNode(
				nodeFor(row),
				[{}],
				service.credentials(credentialChangesFor(row) as Record<string, string>),
			);
			expect(direct.error).toMatchObject({
				name: 'NodeApiError',
				httpCode: row.subCode,
				errorResponse: {
					status: 'ALREADY_EXISTS',
					message: expect.stringMatching(/transfer id already exists/i),
				},
			});
			expect(direct.error?.description).toMatch(
				/^Not paid by this run\. Look Transfer ID \w+ up in the dashboard/,
			);
			expect(direct.error?.description).not.toMatch(/^.*use a new/i);
			// Under Continue, the row comes out with its status, as every row does.
			const continued = await runNode(
				{ ...nodeFor(row), continueOnFail: true },
				[{}],
				service.credentials(credentialChangesFor(row) as Record<string, string>),
			);
			expect(continued.items[0].json).toMatchObject({
				status: 'ALREADY_EXISTS',
				subCode: row.subCode,
				message: expect.stringMatching(/transfer id already exists/i),
			});
			expect(service.sandbox.state().transfers).toEqual([]);
			return;
		}
		// The token endpoint's errors are not in the interface document: one hint for all of them.
		const expectedHint =
			row.operation === 'generateToken'
				? "Check 'Client ID'"
				: findErrorRow(row.operation, row.subCode, row.message).hint;
		const direct = await runNode(
			nodeFor(row),
			[{}],
			service.credentials(credentialChangesFor(row) as Record<string, string>),
		);

		if (direct.error?.name === 'NodeOperationError') {
			// The node refused the request itself: nothing may have left n8n.
			expect(service.sandbox.requests()).toEqual([]);
			// ... and the service's answer to it still maps to the row when it comes.
			const answer = await rawAnswer(service.sandbox, row);
			service.sandbox.reset();
			service.sandbox.configure({
				faults: [{ fault: 'replay', status: answer.httpStatus, body: answer.body, times: 1 }],
			});
			const valid = validRequest[row.operation]();
			const replayed = await runNode(
				nodeFor(valid),
				[{}],
				service.credentials(credentialChangesFor(valid) as Record<string, string>),
			);
			expectMapped(replayed.error, row, expectedHint);
			return;
		}
		expectMapped(direct.error, row, expectedHint);
	});
});

function expectMapped(
	error:
		| (Error & { description?: string; httpCode?: string | null; context?: IDataObject })
		| undefined,
	row: TriggerRow,
	hint: string,
) {
	expect(error?.name).toBe('NodeApiError');
	expect(error?.message).toContain(row.message);
	expect(error?.message).toContain('[item 0]');
	expect(error?.description).toContain(hint);
	const httpCode = row.operation === 'generateToken' ? expect.any(String) : row.subCode;
	expect(error?.httpCode).toEqual(httpCode);
}
