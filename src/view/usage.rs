//! What debates cost (`debate usage`): calls, tokens and dollars since a moment, grouped,
//! and the month against its cap.

use serde::Serialize;

/// `debate usage --json`.
#[derive(Debug, Clone, Serialize)]
pub struct UsageView {
    /// The moment counted from (RFC 3339), and what the rows are grouped by.
    pub since: String,
    pub by: String,
    pub rows: Vec<UsageRow>,
    pub total: UsageRow,
    /// This calendar month (UTC) against `budget.per_month_usd`.
    pub month: MonthView,
}

/// Calls to one model, provider or repository (the total: all of them).
#[derive(Debug, Clone, Default, Serialize)]
pub struct UsageRow {
    pub key: String,
    /// Requests sent: every attempt of a call (a retried one too) and every probe.
    pub requests: u64,
    /// Of them, those not counted as the server reported them: still held (their process
    /// died: counted at their worst case), stopped early (at their limit), or reported
    /// past what was asked for (bounded).
    pub not_as_reported: u64,
    pub prompt_tokens: u64,
    /// Of `prompt_tokens`, what the providers served from their prefix caches.
    pub cached_tokens: u64,
    pub completion_tokens: u64,
    /// US dollars for the calls whose model has a price; `null` when none has.
    pub usd: Option<f64>,
    /// Models called without a price: `usd` leaves their calls out.
    pub unpriced_models: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MonthView {
    pub spent_usd: f64,
    pub per_month_usd: Option<f64>,
    /// What the cap leaves this month.
    pub room_usd: Option<f64>,
}
