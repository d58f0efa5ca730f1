import { Injectable } from '@nestjs/common';
import { ReplicaRouter } from '../../database/replica-router.js';
import type {
  StatementAdjustmentDto,
  StatementAmountDto,
  StatementDataDto,
  StatementDto,
  StatementKeyLineDto,
  StatementOperationLineDto,
  StatementProjectLineDto,
} from './statement.dto.js';

const amount = (a: StatementAmountDto): StatementAmountDto => ({ credits: a.credits, charges: a.charges });

/**
 * A statement as issued, its fields in the order the DTO declares them (the read model keeps it as jsonb, which
 * orders keys its own way), so that the JSON of a statement is the same bytes on every read.
 */
export function statementDto(data: StatementDataDto, issuedAt: Date): StatementDto {
  return {
    org_id: data.org_id,
    month: data.month,
    issued_at: issuedAt.toISOString(),
    covers_position: data.covers_position
      ? { commit: data.covers_position.commit, prepare: data.covers_position.prepare }
      : null,
    totals: { live: amount(data.totals.live), test: amount(data.totals.test) },
    by_project: data.by_project.map((l): StatementProjectLineDto => ({
      project_id: l.project_id,
      environment: l.environment,
      ...amount(l),
    })),
    by_key: data.by_key.map((l): StatementKeyLineDto => ({
      key_id: l.key_id,
      project_id: l.project_id,
      environment: l.environment,
      ...amount(l),
    })),
    by_operation: data.by_operation.map((l): StatementOperationLineDto => ({
      operation: l.operation,
      environment: l.environment,
      ...amount(l),
    })),
    adjustments: data.adjustments.map((a): StatementAdjustmentDto => ({
      kind: a.kind,
      reference: a.reference,
      corrects_month: a.corrects_month,
      environment: a.environment,
      credits: a.credits,
      reason: a.reason,
      actor: { type: a.actor.type, id: a.actor.id },
      occurred_at: a.occurred_at,
    })),
    adjustments_total: { live: data.adjustments_total.live, test: data.adjustments_total.test },
    billable_credits: data.billable_credits,
    grant_credits_used: data.grant_credits_used,
    overage_credits: data.overage_credits,
    overage_price_per_credit: data.overage_price_per_credit,
    overage_amount: data.overage_amount,
  };
}

/** Reads of the statements read model (one row per StatementIssued event), on the read replica when there is one. */
@Injectable()
export class StatementQueries {
  constructor(private readonly reads: ReplicaRouter) {}

  /** Newest month first. */
  async list(orgId: string): Promise<StatementDto[]> {
    const { rows } = await this.reads.query<{ statement: StatementDataDto; issued_at: Date }>(
      'SELECT statement, issued_at FROM statements WHERE org_id = $1 ORDER BY month DESC',
      [orgId],
    );
    return rows.map((r) => statementDto(r.statement, r.issued_at));
  }

  async get(orgId: string, month: string): Promise<StatementDto | null> {
    const { rows } = await this.reads.query<{ statement: StatementDataDto; issued_at: Date }>(
      'SELECT statement, issued_at FROM statements WHERE org_id = $1 AND month = $2',
      [orgId, month],
    );
    const row = rows[0];
    return row ? statementDto(row.statement, row.issued_at) : null;
  }
}
