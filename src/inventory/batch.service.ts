import { Injectable, type Type } from '@nestjs/common';
import { type Caller, FORBIDDEN } from '../auth/caller.js';
import { SecurityId } from '../auth/security-id.js';
import { ItemLocksRepository } from '../catalog/item-locks.repository.js';
import { caseKey } from '../database/case-key.js';
import { TransactionRunner } from '../database/transactions.js';
import { DomainError, type ErrorDetails, ValidationFailed } from '../errors.js';
import { ApiValidationPipe } from '../http/validation.pipe.js';
import { CountService } from './count.service.js';
import { CountDto, HoldDto, IssueDto, MoveDto, ReceiveDto } from './inventory.dto.js';
import type { BatchResponseDto } from './inventory.responses.js';
import { InventoryService } from './inventory.service.js';
import { StockLocksRepository } from './locks.repository.js';
import { LotBudget } from './lot-budget.js';
import { letOthersRun } from '../database/event-loop.js';

/** The most operations one batch carries (EXTENSIONS). */
export const MAX_BATCH_OPERATIONS = 250;

type Body = ReceiveDto | IssueDto | MoveDto | HoldDto | CountDto;

/** What each `op` of a batch is: the body class of its own endpoint, the SecurityIDs that endpoint takes, and the call. */
interface Operation {
  dto: Type<Body>;
  anyOf: SecurityId[];
  run(caller: Caller, dto: Body, key: string | null, budget: LotBudget): Promise<unknown>;
}

/** A refusal of one operation: the endpoint's own failure, its message naming the operation. */
export class BatchOperationFailed extends DomainError {
  constructor(index: number, cause: DomainError) {
    const at = `operations[${index}]`;
    super(cause.code, `${cause.message} (${at})`, operationDetails(cause, index), cause.headers);
  }
}

/**
 * POST /Inventory/Batch: 1 to 250 operations, all or nothing (EXTENSIONS).
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
    private readonly items: ItemLocksRepository,
    private readonly locks: StockLocksRepository,
  ) {
    this.operations = {
      receive: { dto: ReceiveDto, anyOf: [SecurityId.PositiveAdjustment], run: (c, d, k, b) => inventory.receive(c, d as ReceiveDto, k, b) },
      issue: { dto: IssueDto, anyOf: [SecurityId.NegativeAdjustment], run: (c, d, k, b) => inventory.issue(c, d as IssueDto, k, b) },
      move: { dto: MoveDto, anyOf: [SecurityId.LocateMoveUnits], run: (c, d, k, b) => inventory.move(c, d as MoveDto, k, b) },
      hold: { dto: HoldDto, anyOf: [SecurityId.LocateMoveUnits], run: (c, d, k, b) => inventory.hold(c, d as HoldDto, true, k, b) },
      release: { dto: HoldDto, anyOf: [SecurityId.LocateMoveUnits], run: (c, d, k, b) => inventory.hold(c, d as HoldDto, false, k, b) },
      count: { dto: CountDto, anyOf: [SecurityId.PositiveAdjustment, SecurityId.NegativeAdjustment], run: (c, d, k, b) => counts.count(c, d as CountDto, k, b) },
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
    // 3. Warehouse scope.
    bodies.forEach((dto, i) => {
      try {
        caller.assertWarehouses(dto.wid, (dto as MoveDto).shipToWid);
      } catch (error) {
        throw error instanceof DomainError ? new BatchOperationFailed(i, error) : error;
      }
    });
    // 4. The items named.
    const keys = [...new Set(bodies.map((dto) => caseKey(dto.itemID)))];
    const found = await this.items.partNosOf(keys);
    bodies.forEach((dto, i) => {
      if (!found.has(caseKey(dto.itemID))) {
        throw new BatchOperationFailed(i, new ValidationFailed({ [`operations[${i}].itemID`]: [`itemID "${dto.itemID}" does not name an item`] }));
      }
    });
    // 5. State, in order, in one transaction.
    const stock = bodies.flatMap((dto) => [dto.wid, (dto as MoveDto).shipToWid].filter((w): w is number => w !== undefined).map((wid) => ({ partNo: found.get(caseKey(dto.itemID))!, wid })));
    await this.tx.run((_m, ctx) => this.locks.lockItemsAndLevels(ctx, stock));
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
