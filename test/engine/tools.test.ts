/**
 * AI agents: the read nodes are tools with descriptions an agent can act on; the money-moving
 * node (and the token exchange) run as a tool only with the explicit opt-in.
 */
import { PayoutsBeneficiary } from '../../nodes/PayoutsBeneficiary/PayoutsBeneficiary.node';
import { PayoutsIncident } from '../../nodes/PayoutsIncident/PayoutsIncident.node';
import { PayoutsOAuth } from '../../nodes/PayoutsOAuth/PayoutsOAuth.node';
import { PayoutsPaylink } from '../../nodes/PayoutsPaylink/PayoutsPaylink.node';
import { PayoutsTransfer } from '../../nodes/PayoutsTransfer/PayoutsTransfer.node';
import { registerNodeType, runNode, stopEngineTimers } from '../../harness/engine';
import { seed, useSandbox } from '../../harness/sandbox';

afterAll(stopEngineTimers);

const service = useSandbox();

// n8n offers a node that is usable as a tool under the type "<type>Tool"; the class is the same.
registerNodeType('payoutsTransferTool', new PayoutsTransfer());
registerNodeType('payoutsOAuthTool', new PayoutsOAuth());
registerNodeType('payoutsBeneficiaryTool', new PayoutsBeneficiary());

const transfer = (options: Record<string, unknown>) => ({
	type: 'payoutsTransferTool',
	parameters: {
		operation: 'standardTransfer',
		beneId: seed.beneficiaries.verified,
		amount: 100,
		transferId: 'agent_1',
		transferMode: 'banktransfer',
		additionalFields: {},
		options,
	},
});

test('the read nodes are tools, with descriptions that say what they return', () => {
	for (const node of [new PayoutsBeneficiary(), new PayoutsIncident(), new PayoutsPaylink()]) {
		expect(node.description.usableAsTool).toBe(true);
		expect(node.description.description.length).toBeGreaterThan(30);
	}
});

test('an agent cannot move money unless the node allows it', async () => {
	const { error } = await runNode(transfer({}), [{}], service.credentials());
	expect(error?.message).toBe("Payouts does not run as an AI agent's tool unless allowed");
	expect(error?.description).toContain("'Allow Use by AI Agents'");
	expect(service.sandbox.requests()).toEqual([]);
});

test("with the opt-in on, the agent's call goes through like any other", async () => {
	const { items, error } = await runNode(
		transfer({ allowAgentUse: true }),
		[{}],
		service.credentials(),
	);
	expect(error).toBeUndefined();
	expect(items[0].json).toMatchObject({ status: 'SUCCESS', transferId: 'agent_1' });
});

test('the token exchange needs the opt-in too; a read does not', async () => {
	const token = await runNode(
		{
			type: 'payoutsOAuthTool',
			parameters: { operation: 'generateToken', authCode: seed.authCodes[5] },
		},
		[{}],
		service.credentials(),
	);
	expect(token.error?.message).toContain('unless allowed');
	const read = await runNode(
		{
			type: 'payoutsBeneficiaryTool',
			parameters: { operation: 'get', beneId: seed.beneficiaries.verified },
		},
		[{}],
		service.credentials(),
	);
	expect(read.items[0].json.beneId).toBe(seed.beneficiaries.verified);
});
