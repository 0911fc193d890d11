//! `debate doctor [PROVIDER]`: whether each configured provider can run a debate, asked
//! of the provider itself — is its server reachable, is its key there (never shown), does
//! it have the model, which structured format works, does it stream, how many requests it
//! serves at once, how fast it writes — and what a default debate would take there. What
//! it learns (the format, the requests at once) is kept as a debate keeps it.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::app::shared::spending;
use crate::error::{Error, Result};
use crate::model::{AtOnce, Cap, Price, PriceList, ProviderDef, ProviderKind, Purpose, RoleChoice, Usage, prices};
use crate::providers::budget::Till;
use crate::providers::{self, Budget, Provider, ProviderError, Request, Schema, TextSink};
use crate::repo::Here;
use crate::settings::{self, Settings};
use crate::store::{Server, Store};
use crate::terminal::{self, Terminal};

/// What a default debate asks of the model, for the estimate: three debaters, an
/// argument and a rebuttal each per round over the default rounds, about 600 tokens each
/// (the prompts ask for about 450 words); an evaluation of 300 a round; the analysis and
/// the synthesis, 1,300 together; every prompt about 3,000 tokens.
const DEBATERS: u64 = 3;
const CONTRIBUTION_TOKENS: u64 = 600;
const EVALUATION_TOKENS: u64 = 300;
const OPENING_AND_CLOSING_TOKENS: u64 = 1_300;
const PROMPT_TOKENS: u64 = 3_000;

/// The longest doctor waits for any one answer of a server (its model list, a probe's
/// answer): a minute, or less where the provider's `first_token_timeout_seconds` is
/// less. A server that answers slower is reported as such.
const MOST_PROBE_SECONDS: u64 = 60;

/// The longest one provider's whole checkup takes: half again one answer's limit, and
/// 90 s at most, so a server that answers each request just inside its limit is not
/// waited on four times over.
fn checkup_limit(each: Duration) -> Duration {
    (each + each / 2).min(Duration::from_secs(90))
}

/// What a probe that ran out of time says, and how to fix it: its own limit, or what was
/// left of the whole checkup's.
fn too_slow(name: &str, url: &str, what: &str, limit: Limit) -> Problem {
    Problem {
        what: match limit {
            Limit::Own(limit) => format!("{url} did not answer {what} within {} s", limit.as_secs()),
            Limit::Whole(whole) => format!(
                "{url} answers too slowly: doctor gives a provider {} s in all, and they were spent before {what} was answered",
                whole.as_secs()
            ),
        },
        fix: format!(
            "a model that is still loading answers later: run `debate doctor` again; a slow machine needs a larger providers.{name}.first_token_timeout_seconds"
        ),
        setup: false,
    }
}

/// How long a probe was given: its own limit, or the rest of the whole checkup's.
#[derive(Clone, Copy)]
enum Limit {
    Own(Duration),
    Whole(Duration),
}

impl Limit {
    fn duration(self, left: Duration) -> Duration {
        match self {
            Limit::Own(limit) => limit,
            Limit::Whole(_) => left,
        }
    }
}

/// One provider's checkup: what `debate doctor --json` lists.
#[derive(Debug, Serialize)]
pub struct Checkup {
    provider: String,
    /// The provider a debate uses when none is named (the moderator's or the debaters').
    default: bool,
    kind: ProviderKind,
    base_url: Option<String>,
    /// The variable the key is read from, and whether it holds one (never the key).
    key: Option<KeyStatus>,
    reachable: Option<bool>,
    software: Option<String>,
    model: Option<String>,
    /// Whether the server lists the model (`None`: it lists none).
    model_listed: Option<bool>,
    /// How a structured answer came back: `json_schema`, `json_object`, `instructions`,
    /// or `tool` (Anthropic's forced tool call).
    structured: Option<String>,
    streams: Option<bool>,
    at_once: Option<AtOnce>,
    tokens_per_second: Option<f64>,
    /// What its model costs, and where the price comes from, or "no price".
    price: Option<String>,
    /// A default debate at that speed (and price).
    default_debate: Option<String>,
    /// What is worth knowing and stops nothing.
    notes: Vec<String>,
    /// What stops it from running a debate, each with its fix.
    problems: Vec<Problem>,
}

#[derive(Debug, Serialize)]
struct KeyStatus {
    from: String,
    set: bool,
}

#[derive(Debug, Serialize)]
struct Problem {
    what: String,
    fix: String,
    /// A problem of the settings (exit 4) rather than of the server (exit 3).
    #[serde(skip)]
    setup: bool,
}

pub async fn run(
    only: Option<&str>,
    config: Option<&Path>,
    db_path: &Path,
    json: bool,
    terminal: &Terminal,
) -> Result<()> {
    let checked = checkup(only, config, db_path, &Here::WorkingDirectory, terminal).await?;
    match json {
        true => terminal::print_json(&checked.checkups)?,
        false => terminal::print_out(&checked.table())?,
    }
    checked.verdict()
}

/// Every provider checked (only `only` when named), with the settings of the repository
/// `here`: what `debate doctor --json` prints.
pub async fn checkup(
    only: Option<&str>,
    config: Option<&Path>,
    db_path: &Path,
    here: &Here,
    terminal: &Terminal,
) -> Result<Checked> {
    let root = here.root()?;
    let settings = settings::load(&root, config)?.settings;
    let defaults = default_providers(&settings);
    let names: Vec<String> = match only {
        Some(name) => vec![name.to_string()],
        None => checked(&settings, &defaults),
    };
    let store = Store::open(db_path)?;
    let mut checkups = Vec::new();
    for name in names {
        terminal.say(&format!("Checking {name}…"));
        checkups.push(check(&settings, &name, defaults.contains(&name), &store, db_path).await);
    }
    Ok(Checked { checkups, only: only.is_some() })
}

/// The providers checked, and whether one was named.
pub struct Checked {
    pub checkups: Vec<Checkup>,
    only: bool,
}

impl Checked {
    /// The table `debate doctor` prints; a sentence when there is nothing to check.
    pub fn table(&self) -> String {
        match self.checkups.is_empty() {
            true => {
                "No provider is configured: debates run with --offline until one is (docs/guide.md, \"Providers\").\n"
                    .into()
            }
            false => table(&self.checkups),
        }
    }

    /// Whether a debate can run: only the providers a debate would use (or the one
    /// named) decide; the first problem of theirs is the error, with its fix.
    pub fn verdict(&self) -> Result<()> {
        let deciding: Vec<&Checkup> = self.checkups.iter().filter(|c| c.default || self.only).collect();
        match deciding.iter().flat_map(|c| c.problems.iter().map(move |p| (c, p))).next() {
            None if deciding.is_empty() => Err(Error::config("no provider is configured")
                .with_hint("run with --offline, or configure one (docs/guide.md, \"Providers\")")),
            None => Ok(()),
            Some((checkup, problem)) => {
                let message = format!("{} cannot run a debate: {}", checkup.provider, problem.what);
                Err(match problem.setup {
                    true => Error::config(message).with_hint(&problem.fix),
                    false => Error::Provider(ProviderError::Rejected {
                        message,
                        hint: problem.fix.clone(),
                        status: 0,
                        key: false,
                    }),
                })
            }
        }
    }
}

/// The providers the roles use when none is named.
fn default_providers(settings: &Settings) -> Vec<String> {
    match providers::choose_roles(settings, false) {
        Ok(roles) => std::iter::once(&roles.moderator)
            .chain([&roles.debater])
            .chain(&roles.seat_models)
            .map(|role| role.provider.clone())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The providers worth checking: every one the settings define, the built-in ones whose
/// key is there, and the defaults.
fn checked(settings: &Settings, defaults: &[String]) -> Vec<String> {
    providers::names(settings)
        .into_iter()
        .filter(|name| {
            defaults.contains(name)
                || settings.providers.named.contains_key(name)
                || providers::key_status(settings, name).is_some_and(|(_, set)| set)
        })
        .collect()
}

/// One provider checked, step by step; each step that finds what stops a debate ends it
/// there, its problem in the checkup.
async fn check(settings: &Settings, name: &str, default: bool, store: &Store, db_path: &Path) -> Checkup {
    let mut checkup = Checkup::new(settings, name, default);
    let _ = steps(&mut checkup, settings, store, db_path).await;
    checkup
}

/// The checkup ended at a step: what it found is in the checkup.
struct Ended;

async fn steps(checkup: &mut Checkup, settings: &Settings, store: &Store, db_path: &Path) -> Result<(), Ended> {
    let Some(definition) = definition(checkup, settings)? else { return Ok(()) };
    checkup.describe(&definition);
    // The offline and scripted providers need no server and always answer.
    let Some(probe) = Probe::new(checkup, &definition, settings, db_path)? else { return Ok(()) };
    let unlisted = probe.models(checkup).await?;
    probe.structured(checkup, store, unlisted).await?;
    probe.speed(checkup).await?;
    probe.at_once(checkup, store, &definition).await;
    checkup.default_debate = Some(estimate(settings, checkup, &definition));
    Ok(())
}

impl Checkup {
    /// Nothing known yet of the provider `name` but where its key is read from.
    fn new(settings: &Settings, name: &str, default: bool) -> Checkup {
        Checkup {
            provider: name.to_string(),
            default,
            kind: ProviderKind::Openai,
            base_url: None,
            key: providers::key_status(settings, name).map(|(from, set)| KeyStatus { from, set }),
            reachable: None,
            software: None,
            model: None,
            model_listed: None,
            structured: None,
            streams: None,
            at_once: None,
            tokens_per_second: None,
            price: None,
            default_debate: None,
            notes: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// What the settings say of it: its kind, server, model and, over the network, price.
    fn describe(&mut self, definition: &ProviderDef) {
        self.kind = definition.kind;
        self.base_url = definition.base_url();
        self.model = definition.model.clone();
        if definition.kind.over_the_network() {
            self.price = Some(match self.model.as_deref().and_then(|model| price_of(definition, model)) {
                Some((price, from)) => format!(
                    "${} in, ${} cached, ${} out a million tokens ({from})",
                    price.input,
                    price.cached_input.unwrap_or(price.input),
                    price.output
                ),
                None => "no price: give it one under prices: in its settings to cap a debate's cost".into(),
            });
        }
    }

    /// What stops a debate, from the provider's error; `setup` when it is the settings'.
    fn problem(&mut self, err: &ProviderError, setup: bool) -> Ended {
        let setup = setup || matches!(err, ProviderError::Setup { .. }) || err.about_the_key();
        let fix = err.hint().unwrap_or_else(|| "run with -v for the server's words".into());
        // The table and the error name the provider already.
        let said = err.to_string();
        let what = said.strip_prefix(&format!("{}: ", self.provider)).unwrap_or(&said).to_string();
        self.problems.push(Problem { what, fix, setup });
        Ended
    }
}

/// The provider as the settings define it; none when they do not name it.
fn definition(checkup: &mut Checkup, settings: &Settings) -> Result<Option<ProviderDef>, Ended> {
    let name = checkup.provider.clone();
    match providers::definitions(settings, &[&role(&name, ProviderKind::Openai)]) {
        Ok(mut definitions) => Ok(definitions.remove(&name)),
        Err(err) => Err(checkup.problem(&err, true)),
    }
}

/// What one provider's probes share: the provider built as a debate builds it, what its
/// requests may spend (each on the ledger, priced where the price is known), its address
/// for a problem's words, and the clock of the whole checkup.
struct Probe {
    name: String,
    url: String,
    provider: Arc<dyn Provider>,
    budget: Budget,
    began: Instant,
    /// One answer's limit, and the whole checkup's.
    each: Duration,
    whole: Duration,
}

impl Probe {
    /// The provider built for probing; none when it needs no server.
    fn new(
        checkup: &mut Checkup,
        definition: &ProviderDef,
        settings: &Settings,
        db_path: &Path,
    ) -> Result<Option<Probe>, Ended> {
        let began = Instant::now();
        let name = checkup.provider.clone();
        let definitions = [(name.clone(), definition.clone())].into_iter().collect();
        let chosen = role(&name, definition.kind);
        let provider = match providers::build_panel(&chosen, std::slice::from_ref(&chosen), &definitions, settings) {
            Ok(panel) => panel.moderator,
            Err(err) => return Err(checkup.problem(&err, true)),
        };
        if !provider.identity().reasoned {
            return Ok(None);
        }
        // A second past the provider's own limit, so that its more precise word comes first.
        let own = definition.first_token_timeout_seconds.unwrap_or(MOST_PROBE_SECONDS);
        let each = Duration::from_secs(own.saturating_add(1).clamp(1, MOST_PROBE_SECONDS));
        let prices =
            checkup.model.as_deref().and_then(|model| Some(PriceList::one(model, price_of(definition, model)?.0)));
        let till = spending::LedgerTill::open(db_path, None, None).ok().map(|till| Arc::new(till) as Arc<dyn Till>);
        let budget = Budget::new(Cap::default(), prices.unwrap_or_default(), &[], till);
        let url = checkup.base_url.clone().unwrap_or_default();
        Ok(Some(Probe { name, url, provider, budget, began, each, whole: checkup_limit(each) }))
    }

    /// How long the next probe may take, and which limit that is.
    fn within(&self) -> (Limit, Duration) {
        let left = (self.began + self.whole).saturating_duration_since(Instant::now());
        let limit = if left < self.each { Limit::Whole(self.whole) } else { Limit::Own(self.each) };
        (limit, limit.duration(left))
    }

    /// `future`, given what is left of its limit; a probe out of time ends the checkup.
    async fn timed<T>(&self, checkup: &mut Checkup, what: &str, future: impl Future<Output = T>) -> Result<T, Ended> {
        let (limit, wait) = self.within();
        tokio::time::timeout(wait, future).await.map_err(|_| {
            checkup.problems.push(too_slow(&self.name, &self.url, what, limit));
            Ended
        })
    }

    /// The server, and the models it lists. A model it does not list may still be
    /// answered (llama-cpp-python and a one-model llama.cpp serve their model under any
    /// name): the first call decides, so that problem is returned, not yet recorded.
    async fn models(&self, checkup: &mut Checkup) -> Result<Option<Problem>, Ended> {
        let (name, url) = (&self.name, &self.url);
        match self.timed(checkup, "the request for its models", self.provider.server_says()).await? {
            None => Ok(None),
            Some(Err(why)) => {
                checkup.reachable = Some(false);
                checkup.problems.push(Problem {
                    what: format!("nothing answers at {url} ({why})"),
                    fix: format!("start the server, or correct providers.{name}.base_url"),
                    setup: false,
                });
                Err(Ended)
            }
            Some(Ok(says)) => {
                checkup.reachable = Some(true);
                checkup.software = says.software;
                let (Some(models), Some(model)) = (says.models, &checkup.model) else { return Ok(None) };
                let listed = models.iter().any(|m| m == model || m.strip_suffix(":latest") == Some(model));
                checkup.model_listed = Some(listed);
                if listed {
                    return Ok(None);
                }
                let some: Vec<&str> = models.iter().take(8).map(String::as_str).collect();
                let pull = match checkup.software.as_deref() {
                    Some("Ollama") => format!(" (or `ollama pull {model}`)"),
                    _ => String::new(),
                };
                Ok(Some(Problem {
                    what: format!("the server has no model {model:?} (it lists: {})", some.join(", ")),
                    fix: format!("set providers.{name}.model to one it lists{pull}"),
                    setup: true,
                }))
            }
        }
    }

    /// A structured answer, as the moderator asks for one; the format that worked is kept.
    async fn structured(&self, checkup: &mut Checkup, store: &Store, unlisted: Option<Problem>) -> Result<(), Ended> {
        let probe = Request { budget: self.budget.clone(), ..structured_probe() };
        let answered = self.timed(checkup, "a structured question", self.provider.complete(&probe)).await?;
        match (answered, unlisted) {
            (Ok(answer), unlisted) => {
                let structured = answer.format.unwrap_or_else(|| "tool".into());
                if let (Some(base_url), Some(model)) = (&checkup.base_url, &checkup.model) {
                    let _ = store.save_format(&Server { provider: &self.name, model, base_url }, &structured);
                }
                checkup.structured = Some(structured);
                if unlisted.is_some() {
                    checkup.notes.push(
                        "the server does not list the model but answers for it (it serves one model under any name)"
                            .into(),
                    );
                }
                Ok(())
            }
            // Refused, and not listed: the model is what to fix.
            (Err(_), Some(problem)) => {
                checkup.problems = vec![problem];
                Err(Ended)
            }
            (Err(err), None) => Err(checkup.problem(&err, false)),
        }
    }

    /// Prose, streamed, timed from its first token: whether it streams, and how fast.
    async fn speed(&self, checkup: &mut Checkup) -> Result<(), Ended> {
        let times = Arc::new(Mutex::new(Vec::new()));
        let seen = times.clone();
        let mut prose = Request::probe("Count from 1 to 60, the numbers separated by spaces.", 160);
        prose.budget = self.budget.clone();
        prose.on_text = Some(TextSink::new(move |text| {
            if !text.is_empty() {
                seen.lock().unwrap_or_else(|e| e.into_inner()).push(Instant::now());
            }
        }));
        let started = Instant::now();
        let answer = match self.timed(checkup, "a short prose answer", self.provider.complete(&prose)).await? {
            Ok(answer) => answer,
            Err(err) => return Err(checkup.problem(&err, false)),
        };
        let whole = started.elapsed();
        let times = times.lock().unwrap_or_else(|e| e.into_inner()).clone();
        checkup.streams = Some(times.len() > 1);
        // The model's writing is timed from its first token to its last, unless the text
        // came in one burst (a gateway that buffers the stream): then the whole call is
        // what the speed can be told from.
        let writing = match (times.first(), times.last()) {
            (Some(first), Some(last)) if spread(*last - *first, whole) => {
                (*last - *first, answer.usage.completion_tokens.saturating_sub(1))
            }
            _ => (whole, answer.usage.completion_tokens),
        };
        let seconds = writing.0.as_secs_f64();
        checkup.tokens_per_second = (seconds > 0.0 && writing.1 > 0).then(|| writing.1 as f64 / seconds);
        Ok(())
    }

    /// How many requests it serves at once, as the provider finds out (kept for debates)
    /// or the settings say; not knowing stops nothing.
    async fn at_once(&self, checkup: &mut Checkup, store: &Store, definition: &ProviderDef) {
        let (limit, wait) = self.within();
        let Ok(at_once) = tokio::time::timeout(wait, self.provider.serves_at_once(&self.budget)).await else {
            checkup.notes.push(match limit {
                Limit::Own(limit) => format!(
                    "how many requests it serves at once is not known: finding out took over {} s",
                    limit.as_secs()
                ),
                Limit::Whole(whole) => format!(
                    "how many requests it serves at once is not known: doctor gives a provider {} s in all, spent before it could find out",
                    whole.as_secs()
                ),
            });
            return;
        };
        checkup.at_once = match at_once {
            Some(learned) => {
                if let Some(base_url) = self.provider.learning_server() {
                    let _ = store.save_at_once(base_url, &learned);
                }
                Some(learned)
            }
            None => definition
                .max_concurrency
                .map(|requests| AtOnce { requests, learned_from: "max_concurrency in the settings".into() }),
        };
    }
}

/// Whether streamed text arriving over `span` of a call that took `whole` shows the
/// model writing: a tenth of a second at least, and a fifth of the call.
fn spread(span: Duration, whole: Duration) -> bool {
    span >= Duration::from_millis(100) && span * 5 >= whole
}

fn role(name: &str, kind: ProviderKind) -> RoleChoice {
    RoleChoice { provider: name.to_string(), kind, model: None, temperature: 0.0 }
}

/// A structured question of a few tokens.
fn structured_probe() -> Request {
    let schema = Schema {
        name: "answer",
        value: serde_json::json!({
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"],
            "additionalProperties": false
        }),
    };
    Request {
        purpose: Purpose::Probe,
        schema: Some(schema),
        ..Request::probe("Answer with the JSON object {\"ok\": true}.", 32)
    }
}

/// What a default debate would take at the speed measured, one request at a time or as
/// many as the server serves, and its price where the settings give one.
fn estimate(settings: &Settings, checkup: &Checkup, definition: &ProviderDef) -> String {
    let rounds = u64::from(settings.debate.max_rounds.get());
    let calls = rounds * (DEBATERS * 2 + 1) + 2;
    let generated = rounds * (DEBATERS * 2 * CONTRIBUTION_TOKENS + EVALUATION_TOKENS) + OPENING_AND_CLOSING_TOKENS;
    let together = checkup.at_once.as_ref().map_or(DEBATERS, |a| (a.requests as u64).clamp(1, DEBATERS));
    let time = checkup.tokens_per_second.map(|tps| {
        let seconds = generated as f64 / tps / together as f64;
        match seconds < 90.0 {
            true => format!("about {seconds:.0} s"),
            false => format!("about {:.0} min", seconds / 60.0),
        }
    });
    let usage = Usage { prompt_tokens: calls * PROMPT_TOKENS, completion_tokens: generated, ..Usage::default() };
    let price = checkup
        .model
        .as_deref()
        .and_then(|model| price_of(definition, model))
        .map(|(price, _)| crate::model::dollars(price.of(&usage)));
    format!(
        "up to {rounds} rounds, {calls} calls, ~{generated} tokens written: {}, {}",
        time.unwrap_or_else(|| "time unknown".into()),
        price.map_or_else(|| "cost unknown (no price)".into(), |p| format!("≈ {p}"))
    )
}

/// A model's price and where it comes from: the provider's settings, else the built-in table.
fn price_of(definition: &ProviderDef, model: &str) -> Option<(Price, String)> {
    match definition.prices.get(model) {
        Some(price) => Some((*price, "the settings".into())),
        None => prices::built_in(model).map(|price| (price, format!("built in, as of {}", prices::AS_OF))),
    }
}

/// The checkups as a table, then every problem with its fix.
fn table(checkups: &[Checkup]) -> String {
    let yes_no = |b: Option<bool>| b.map_or("-", |b| if b { "yes" } else { "no" }).to_string();
    let mut rows = vec![
        ["PROVIDER", "SERVER", "KEY", "MODEL", "STRUCTURED", "STREAMS", "AT ONCE", "TOKENS/S"].map(str::to_string),
    ];
    for c in checkups {
        let server = match (&c.base_url, c.reachable) {
            (Some(url), Some(false)) => format!("{url} (unreachable)"),
            (Some(url), _) => match &c.software {
                Some(software) => format!("{url} ({software})"),
                None => url.clone(),
            },
            (None, _) => "-".into(),
        };
        let key =
            c.key.as_ref().map_or("-".into(), |k| format!("{} {}", k.from, if k.set { "set" } else { "not set" }));
        let model = match (&c.model, c.model_listed) {
            (Some(model), Some(false)) => format!("{model} (not listed)"),
            (Some(model), _) => model.clone(),
            (None, _) => "-".into(),
        };
        rows.push([
            format!("{}{}", c.provider, if c.default { " *" } else { "" }),
            server,
            key,
            model,
            c.structured.clone().unwrap_or_else(|| "-".into()),
            yes_no(c.streams),
            c.at_once.as_ref().map_or("-".into(), |a| a.requests.to_string()),
            c.tokens_per_second.map_or("-".into(), |t| format!("{t:.1}")),
        ]);
    }
    let widths: Vec<usize> = (0..8).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, width)| format!("{cell:<width$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out.push_str("* a debate uses it when none is named\n");
    for c in checkups {
        if let Some(at_once) = &c.at_once {
            out.push_str(&format!("\n{}: {} at once ({})", c.provider, at_once.requests, at_once.learned_from));
        }
        if let Some(price) = &c.price {
            out.push_str(&format!("\n{}: price: {price}", c.provider));
        }
        if let Some(debate) = &c.default_debate {
            out.push_str(&format!("\n{}: a default debate: {debate}", c.provider));
        }
        for note in &c.notes {
            out.push_str(&format!("\n{}: {note}", c.provider));
        }
        for problem in &c.problems {
            out.push_str(&format!("\n{}: {}\n  fix: {}", c.provider, problem.what, problem.fix));
        }
    }
    out.push('\n');
    out
}
