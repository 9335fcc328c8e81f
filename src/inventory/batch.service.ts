import { Injectable, type Type } from '@nestjs/common';
import { type Caller, FORBIDDEN } from '../auth/caller.js';
import { SecurityId } from '../auth/security-id.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { caseKey } from '../database/case-key.js';
import { TransactionRunner } from '../database/transactions.js';
import { DomainError, type ErrorDetails, ValidationFailed } from '../errors.js';
import { ApiValidationPipe } from '../http/validation.pipe.js';
import { AllocateDto, AllocationOperationDto, PackOperationDto } from './allocation.dto.js';
import { AllocationsRepository } from './allocations.repository.js';
import { AllocationsService } from './allocations.service.js';
import { CountService } from './count.service.js';
import { ExpectationOperationDto, ExpectDto } from './expectation.dto.js';
import { ExpectationsRepository } from './expectations.repository.js';
import { ExpectationsService } from './expectations.service.js';
import { CountDto, HoldDto, IssueDto, MoveDto, ReceiveDto } from './inventory.dto.js';
import type { BatchResponseDto } from './inventory.responses.js';
import { InventoryService } from './inventory.service.js';
import { StockLocksRepository } from './locks.repository.js';
import { LotBudget } from './lot-budget.js';
import { DocumentNotFound } from './stock-documents.js';
import { letOthersRun } from '../database/event-loop.js';

/** The most operations one batch carries (EXTENSIONS). */
export const MAX_BATCH_OPERATIONS = 250;

type Body = ReceiveDto | IssueDto | MoveDto | HoldDto | CountDto | AllocateDto | PackOperationDto | AllocationOperationDto | ExpectDto | ExpectationOperationDto;
/** Every field of every body, optional: what the checks read of a body whatever its op. */
type Fields = Partial<ReceiveDto & IssueDto & MoveDto & PackOperationDto & ExpectationOperationDto>;

/**
 * What each `op` of a batch is: the body class of its own endpoint, the
 * SecurityIDs that endpoint takes, the document its body names as the
 * endpoint's path does (read after the scope check of the warehouses the
 * bodies name; one of a warehouse out of scope is 404, as an unknown id),
 * and the call.
 */
interface Operation {
  dto: Type<Body>;
  anyOf: SecurityId[];
  names?: 'allocation' | 'expectation';
  run(caller: Caller, dto: Body, key: string | null, budget: LotBudget): Promise<unknown>;
}

/** A document a body names by id, as the checks read it. */
type Named = { partNo: number; wID: number };

/** A refusal of one operation: the endpoint's own failure, its message naming the operation. */
export class BatchOperationFailed extends DomainError {
  constructor(index: number, cause: DomainError) {
    const at = `operations[${index}]`;
    super(cause.code, `${cause.message} (${at})`, operationDetails(cause, index), cause.headers);
  }
}

/**
 * POST /Inventory/Batch: 1 to 250 operations, all or nothing (EXTENSIONS):
 * the warehouse operations, and the stock documents' (allocate, pack,
 * cancelAllocation, expect, shipExpectation, cancelExpectation; an issue or
 * receive against a document by its id).
 * Every operation is checked before anything runs, kind by kind over the
 * whole batch (DECISIONS "Order of checks"): permissions, then bodies, then
 * warehouse scope, then the items named; the first failing kind is reported at
 * its lowest index. Then one transaction — the request's unit of work, which
 * every operation's own `run` joins — first locks every item named and its
 * stock rows in the global order of locks.repository.ts, so that batches touching the
 * same items in any order queue rather than deadlock, and runs the operations
 * in order; the first failure rolls everything back.
 */
@Injectable()
export class BatchService {
  private readonly operations: Record<string, Operation>;
  private readonly pipe = new ApiValidationPipe();

  constructor(
    private readonly tx: TransactionRunner,
    inventory: InventoryService,
    counts: CountService,
    private readonly allocations: AllocationsService,
    private readonly expectations: ExpectationsService,
    private readonly items: ItemLocksRepository,
    private readonly locks: StockLocksRepository,
    private readonly allocationRows: AllocationsRepository,
    private readonly expectationRows: ExpectationsRepository,
  ) {
    this.operations = {
      receive: { dto: ReceiveDto, anyOf: [SecurityId.PositiveAdjustment], run: (c, d, k, b) => inventory.receive(c, d as ReceiveDto, k, b) },
      issue: { dto: IssueDto, anyOf: [SecurityId.NegativeAdjustment], run: (c, d, k, b) => inventory.issue(c, d as IssueDto, k, b) },
      move: { dto: MoveDto, anyOf: [SecurityId.LocateMoveUnits], run: (c, d, k, b) => inventory.move(c, d as MoveDto, k, b) },
      hold: { dto: HoldDto, anyOf: [SecurityId.LocateMoveUnits], run: (c, d, k, b) => inventory.hold(c, d as HoldDto, true, k, b) },
      release: { dto: HoldDto, anyOf: [SecurityId.LocateMoveUnits], run: (c, d, k, b) => inventory.hold(c, d as HoldDto, false, k, b) },
      count: { dto: CountDto, anyOf: [SecurityId.PositiveAdjustment, SecurityId.NegativeAdjustment], run: (c, d, k, b) => counts.count(c, d as CountDto, k, b) },
      allocate: { dto: AllocateDto, anyOf: [SecurityId.NegativeAdjustment], run: (c, d) => allocations.allocate(c, d as AllocateDto) },
      pack: { dto: PackOperationDto, anyOf: [SecurityId.LocateMoveUnits], names: 'allocation', run: (c, d) => allocations.pack(c, (d as PackOperationDto).allocationId, d as PackOperationDto) },
      cancelAllocation: { dto: AllocationOperationDto, anyOf: [SecurityId.NegativeAdjustment], names: 'allocation', run: (c, d) => allocations.cancel(c, (d as AllocationOperationDto).allocationId) },
      expect: { dto: ExpectDto, anyOf: [SecurityId.PositiveAdjustment], run: (c, d) => expectations.expect(c, d as ExpectDto) },
      shipExpectation: { dto: ExpectationOperationDto, anyOf: [SecurityId.PositiveAdjustment], names: 'expectation', run: (c, d) => expectations.ship(c, (d as ExpectationOperationDto).expectationId) },
      cancelExpectation: {
        dto: ExpectationOperationDto,
        anyOf: [SecurityId.PositiveAdjustment],
        names: 'expectation',
        run: (c, d) => expectations.cancel(c, (d as ExpectationOperationDto).expectationId),
      },
    };
  }

  async run(caller: Caller, raw: unknown, key: string | null): Promise<BatchResponseDto> {
    const entries = this.entries(raw);
    // 1. Permissions, over the whole batch.
    entries.forEach(({ op }, i) => {
      if (!op.anyOf.some((id) => caller.can(id))) throw new BatchOperationFailed(i, new DomainError('forbidden', FORBIDDEN.permission));
    });
    // 2. Bodies: each as its own endpoint's, through the same pipe; every invalid field of every operation is named.
    const bodies: Body[] = [];
    const details: ErrorDetails = {};
    let firstInvalid = -1;
    for (const [i, { op, body }] of entries.entries()) {
      // 250 bodies through class-validator take a while: the event loop turns between them (event-loop.ts).
      await letOthersRun();
      try {
        bodies.push((await this.pipe.transform(body, { type: 'body', metatype: op.dto })) as Body);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        if (firstInvalid < 0) firstInvalid = i;
        for (const [field, messages] of Object.entries(error.details ?? { '': [error.message] })) details[`operations[${i}]${field ? `.${field}` : ''}`] = messages;
      }
    }
    if (firstInvalid >= 0) throw new BatchOperationFailed(firstInvalid, new ValidationFailed(details));
    // 3. Warehouse scope: the warehouses a body names (a document named as a path would is looked up in 4).
    const fields = bodies as Fields[];
    fields.forEach((dto, i) => {
      try {
        caller.assertWarehouses(dto.wid, dto.shipToWid);
      } catch (error) {
        throw error instanceof DomainError ? new BatchOperationFailed(i, error) : error;
      }
    });
    // 4. The things named: items, the documents named as a path would (404, also in a warehouse out of scope: Caller.sees), and those a body refers to (an Issue's allocation, a Receive's expectation).
    const named = await this.named(caller, entries.map(({ op }) => op), fields);
    const keys = [...new Set(fields.flatMap((dto) => (dto.itemID === undefined ? [] : [caseKey(dto.itemID)])))];
    const found = await this.items.partNosOf(keys);
    for (const [i, dto] of fields.entries()) {
      try {
        const partNo = dto.itemID === undefined ? undefined : found.get(caseKey(dto.itemID));
        if (dto.itemID !== undefined && partNo === undefined) throw new ValidationFailed({ [`operations[${i}].itemID`]: [`itemID "${dto.itemID}" does not name an item`] });
        const names = entries[i].op.names;
        if (names && !named[i]) throw new DocumentNotFound(names, names === 'allocation' ? dto.allocationId! : dto.expectationId!);
        if (!names && partNo !== undefined && dto.allocationId !== undefined) await this.allocations.referenced(dto.allocationId, partNo, dto.wid!);
        if (!names && partNo !== undefined && dto.expectationId !== undefined) await this.expectations.referenced(dto.expectationId, partNo, dto.wid!);
      } catch (error) {
        throw error instanceof DomainError ? new BatchOperationFailed(i, error) : error;
      }
    }
    // 5. State, in order, in one transaction.
    const stock = fields.flatMap((dto, i) => {
      if (named[i]) return [{ partNo: named[i].partNo, wid: named[i].wID }];
      const partNo = found.get(caseKey(dto.itemID!))!;
      return [dto.wid, dto.shipToWid].filter((w): w is number => w !== undefined).map((wid) => ({ partNo, wid }));
    });
    await this.tx.run((ctx) => this.locks.lockItemsAndLevels(ctx, stock));
    const results: unknown[] = [];
    // EXTENSIONS: at most MAX_BATCH_LOTS lots in all, each operation's counted before it writes.
    const budget = new LotBudget();
    for (const [i, { op }] of entries.entries()) {
      try {
        // Up to 250 operations in one transaction: the event loop turns between them too (event-loop.ts).
        await letOthersRun();
        results.push(await op.run(caller, bodies[i], key, budget));
      } catch (error) {
        throw error instanceof DomainError ? new BatchOperationFailed(i, error) : error;
      }
    }
    return { status: 'completed', results } as BatchResponseDto;
  }

  /** The documents the bodies name as a path would (pack, cancelAllocation, shipExpectation, cancelExpectation), by operation; undefined where none, unknown or in a warehouse out of the caller's scope. */
  private async named(caller: Caller, ops: Operation[], fields: Fields[]): Promise<Array<Named | undefined>> {
    const ids = (kind: 'allocation' | 'expectation') => fields.flatMap((dto, i) => (ops[i].names !== kind ? [] : [kind === 'allocation' ? dto.allocationId! : dto.expectationId!]));
    const allocations = await this.allocationRows.findMany([...new Set(ids('allocation'))]);
    const expectations = await this.expectationRows.findMany([...new Set(ids('expectation'))]);
    const found = fields.map((dto, i) => (ops[i].names === 'allocation' ? allocations.get(dto.allocationId!) : ops[i].names === 'expectation' ? expectations.get(dto.expectationId!) : undefined));
    return found.map((doc) => (doc && caller.sees(doc.wID) ? doc : undefined));
  }

  /** The batch's shape: `operations`, 1 to 250 objects, each with a known `op`. */
  private entries(raw: unknown): Array<{ op: Operation; body: Record<string, unknown> }> {
    const list = (raw as { operations?: unknown }).operations;
    if (!Array.isArray(list) || list.length < 1 || list.length > MAX_BATCH_OPERATIONS) {
      throw new ValidationFailed({ operations: [`operations must be an array of 1 to ${MAX_BATCH_OPERATIONS} operations`] });
    }
    const problems: ErrorDetails = {};
    const entries = list.map((entry, i) => {
      if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
        problems[`operations[${i}]`] = ['each operation must be a JSON object'];
        return null;
      }
      const { op: name, body } = splitOp(entry as Record<string, unknown>);
      const op = typeof name === 'string' && Object.hasOwn(this.operations, name) ? this.operations[name] : undefined;
      if (!op) problems[`operations[${i}].op`] = [`op must be one of ${Object.keys(this.operations).join(', ')}`];
      return op ? { op, body } : null;
    });
    if (Object.keys(problems).length) throw new ValidationFailed(problems);
    return entries as Array<{ op: Operation; body: Record<string, unknown> }>;
  }
}

/**
 * A refused operation's `details`: validation fields named under
 * `operations[<i>]`; a conflict's reason and figures with the operation's
 * index (DECISIONS "Conflicts").
 */
function operationDetails(cause: DomainError, index: number): DomainError['details'] {
  if (!cause.details) return null;
  if (cause.code === 'conflict') return { ...cause.details, operation: index } as DomainError['details'];
  const at = `operations[${index}]`;
  return Object.fromEntries(Object.entries(cause.details).map(([field, m]) => [field.startsWith('operations') ? field : `${at}.${field}`, m]));
}

/** `op` (its name in any case, like every field name) and the rest: the operation's own body. */
function splitOp(entry: Record<string, unknown>): { op: unknown; body: Record<string, unknown> } {
  const body: Record<string, unknown> = {};
  let op: unknown;
  for (const [name, value] of Object.entries(entry)) {
    if (name.toLowerCase() === 'op') op = value;
    else body[name] = value;
  }
  return { op, body };
}
