//! Catalog + analysis → a panel of 2–4 perspectives with a reason for each pick
//! (docs/guide.md, "What a debate does"). At least one pair on the panel always opposes.

use schemars::JsonSchema;
use serde::Deserialize;

use super::analysis::keyword_terms;
use super::answers::Answer;
use crate::catalog::Catalog;
use crate::model::lenient::text;
use crate::model::{Analysis, PerspectiveDef, Seat};

/// A panel that cannot be formed as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    #[error("--with {name:?}: no such perspective in the catalog (known: {known})")]
    UnknownName { name: String, known: String },
    #[error("--with names {forced} perspectives but the panel has {size} seats; raise --perspectives or name fewer")]
    MoreForcedThanSeats { forced: usize, size: usize },
    #[error("--with names {0} perspectives; a panel has at most 4")]
    TooManyForced(usize),
    #[error(
        "the perspectives {0} do not oppose each other and leave no seat for one that does; add a seat with --perspectives or name an opposing perspective with --with"
    )]
    NoOpposition(String),
}

impl SelectionError {
    pub fn exit_code(&self) -> u8 {
        2
    }

    pub fn hint(&self) -> Option<String> {
        None
    }
}

/// The moderator's refinement of the keyword panel.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PanelChoice {
    /// the options to decide between: those the question names, those the project suggests, and keeping what exists where that is an option; 2 to 5, each a few words
    #[serde(default, deserialize_with = "crate::model::lenient::one_or_many")]
    pub options: Vec<String>,
    /// only when your options add one the question does not name or leave out one of those read from it: why, in one sentence; else empty
    #[serde(default, deserialize_with = "text")]
    pub options_reason: String,
    /// the perspectives that should debate it
    #[serde(default)]
    pub perspectives: Vec<PanelPick>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PanelPick {
    /// catalog name
    #[serde(default, deserialize_with = "text")]
    pub name: String,
    /// why this viewpoint matters here
    #[serde(default, deserialize_with = "text")]
    pub reason: String,
}

impl Answer for PanelChoice {
    const NAME: &'static str = "choose_panel";
}

/// What the caller asks of the panel.
#[derive(Debug, Clone, Default)]
pub struct Request<'a> {
    /// `--perspectives` or the `default_perspectives` setting.
    pub size: Option<u8>,
    /// `--with` names; always included.
    pub forced: &'a [String],
}

struct Candidate<'a> {
    def: &'a PerspectiveDef,
    score: u32,
    reason: String,
}

/// Choose the panel. Errors are user-facing messages (an unknown `--with` name, more
/// forced names than seats, forced names that leave no room for opposition).
pub fn select(
    catalog: &Catalog,
    question: &str,
    analysis: &Analysis,
    request: &Request,
) -> Result<Vec<Seat>, SelectionError> {
    let forced = resolve_forced(catalog, request.forced)?;
    let size = panel_size(analysis, request, forced.len())?;
    let mut ranked = rank(catalog, question, analysis);

    let mut panel: Vec<Candidate> = Vec::new();
    for def in &forced {
        let position = ranked.iter().position(|c| c.def.name == def.name).expect("forced names come from the catalog");
        let mut candidate = ranked.remove(position);
        candidate.reason = "requested with --with".into();
        candidate.score = u32::MAX;
        panel.push(candidate);
    }
    while panel.len() < size {
        panel.push(ranked.remove(0));
    }
    ensure_opposition(catalog, &mut panel, &mut ranked)?;
    Ok(panel.into_iter().map(|c| Seat { perspective: c.def.clone(), reason: c.reason, dropped: None }).collect())
}

/// The moderator's refinement of the panel, if it keeps the rules: catalog names only,
/// 2 to 4 seats (exactly `size` when the user fixed it), no repeats, every forced name,
/// and an opposing pair.
pub fn refine(
    catalog: &Catalog,
    proposed: &[Seat],
    forced: &[String],
    size: Option<u8>,
    choice: &PanelChoice,
) -> Option<Vec<Seat>> {
    let seats_wanted = choice.perspectives.len();
    if !(2..=4).contains(&seats_wanted) || size.is_some_and(|size| usize::from(size) != seats_wanted) {
        return None;
    }
    let mut seats: Vec<Seat> = Vec::new();
    for pick in &choice.perspectives {
        let def = catalog.find(&pick.name)?;
        if seats.iter().any(|s| s.name() == def.name) {
            return None;
        }
        let is_forced = forced.iter().any(|f| f.trim().eq_ignore_ascii_case(&def.name));
        let earlier = proposed.iter().find(|p| p.name() == def.name).map(|p| p.reason.clone());
        let reason = match (is_forced, pick.reason.as_str()) {
            (true, _) => "requested with --with".to_string(),
            (false, "") => earlier.unwrap_or_else(|| "chosen by the moderator".into()),
            (false, given) => given.to_string(),
        };
        seats.push(Seat { perspective: def.clone(), reason, dropped: None });
    }
    let has_forced = forced.iter().all(|f| seats.iter().any(|s| s.name().eq_ignore_ascii_case(f.trim())));
    let opposed =
        seats.iter().enumerate().any(|(i, a)| seats[i + 1..].iter().any(|b| catalog.opposed(a.name(), b.name())));
    (has_forced && opposed).then_some(seats)
}

/// The moderator's options, if they make a choice: 2 to 5 distinct one-line names of
/// at most 80 characters. `None` keeps the options the question named.
pub fn refine_options(choice: &PanelChoice) -> Option<Vec<String>> {
    let mut options: Vec<String> = Vec::new();
    for option in &choice.options {
        let option = crate::text::untrusted::one_line(option).trim().trim_end_matches('.').to_string();
        if option.is_empty() || option.chars().count() > 80 {
            return None;
        }
        if !options.iter().any(|o| o.eq_ignore_ascii_case(&option)) {
            options.push(option);
        }
    }
    (2..=5).contains(&options.len()).then_some(options)
}

fn resolve_forced<'a>(catalog: &'a Catalog, names: &[String]) -> Result<Vec<&'a PerspectiveDef>, SelectionError> {
    let mut forced: Vec<&PerspectiveDef> = Vec::new();
    for name in names {
        let def = catalog.find(name).ok_or_else(|| {
            let known: Vec<&str> = catalog.entries().iter().map(|e| e.name.as_str()).collect();
            SelectionError::UnknownName { name: name.clone(), known: known.join(", ") }
        })?;
        if !forced.iter().any(|f| f.name == def.name) {
            forced.push(def);
        }
    }
    Ok(forced)
}

fn panel_size(analysis: &Analysis, request: &Request, forced: usize) -> Result<usize, SelectionError> {
    match request.size {
        Some(size) if (size as usize) < forced => {
            Err(SelectionError::MoreForcedThanSeats { forced, size: size as usize })
        }
        Some(size) => Ok(size as usize),
        None if forced > 4 => Err(SelectionError::TooManyForced(forced)),
        None => Ok((analysis.panel_size as usize).max(forced).clamp(2, 4)),
    }
}

/// Every catalog entry scored against the question, best first. Ties go to the entry
/// more of whose keywords the question names (a custom perspective whose every keyword
/// matches beats a broad built-in one), then to catalog order.
fn rank<'a>(catalog: &'a Catalog, question: &str, analysis: &Analysis) -> Vec<Candidate<'a>> {
    let terms = keyword_terms(question)
        .reserving(catalog.entries().iter().flat_map(|def| def.keywords.iter().map(String::as_str)));
    let mut ranked: Vec<(Candidate, f64)> = catalog
        .entries()
        .iter()
        .map(|def| {
            let hits = terms.hits(&def.keywords);
            let domain = analysis.domains.iter().position(|d| def.domains.iter().any(|x| x.eq_ignore_ascii_case(d)));
            let implied: Vec<&str> = analysis
                .constraints
                .iter()
                .filter(|c| c.favours.iter().any(|f| f.eq_ignore_ascii_case(&def.name)))
                .map(|c| c.phrase.as_str())
                .collect();
            let score = hits.len() as u32 * 3
                + domain.map_or(0, |rank| if rank == 0 { 2 } else { 1 })
                + implied.len() as u32 * 4;
            let share = hits.len() as f64 / def.keywords.len().max(1) as f64;
            (
                Candidate { def, score, reason: reason(def, &hits, &implied, domain.map(|d| &analysis.domains[d])) },
                share,
            )
        })
        .collect();
    ranked.sort_by(|(a, a_share), (b, b_share)| b.score.cmp(&a.score).then(b_share.total_cmp(a_share)));
    ranked.into_iter().map(|(candidate, _)| candidate).collect()
}

/// Why an entry is on the panel: what the question implies, the keywords it names and
/// the domain it speaks to.
fn reason(def: &PerspectiveDef, hits: &[&str], implied: &[&str], domain: Option<&String>) -> String {
    let mut reasons = Vec::new();
    if !implied.is_empty() {
        reasons.push(format!("the question implies {}", quoted(implied)));
    }
    if !hits.is_empty() {
        reasons.push(format!("it mentions {}", quoted(hits)));
    }
    if let Some(domain) = domain {
        reasons.push(format!("speaks to the {domain} domain"));
    }
    match reasons.is_empty() {
        true => format!("a general counterweight: {}", def.priorities.join(", ")),
        false => capitalise(&reasons.join("; ")),
    }
}

/// If nobody on the panel opposes anybody, swap the weakest unforced pick for the best
/// candidate that opposes someone who stays.
fn ensure_opposition<'a>(
    catalog: &Catalog,
    panel: &mut Vec<Candidate<'a>>,
    ranked: &mut Vec<Candidate<'a>>,
) -> Result<(), SelectionError> {
    let opposed_pair = |panel: &[Candidate]| {
        panel.iter().enumerate().any(|(i, a)| panel[i + 1..].iter().any(|b| catalog.opposed(&a.def.name, &b.def.name)))
    };
    if opposed_pair(panel) {
        return Ok(());
    }
    let mut replaceable: Vec<usize> = (0..panel.len()).filter(|&i| panel[i].score != u32::MAX).collect();
    // The panel is in rank order: among equal scores the later seat is the weaker one.
    replaceable.sort_by_key(|&i| (panel[i].score, std::cmp::Reverse(i)));
    // Give up the weakest seat first; fill it with the strongest candidate that works.
    for &seat in &replaceable {
        for (position, candidate) in ranked.iter().enumerate() {
            let target = panel
                .iter()
                .enumerate()
                .find(|(i, member)| *i != seat && catalog.opposed(&candidate.def.name, &member.def.name));
            if let Some((_, member)) = target {
                let mut chosen = ranked.remove(position);
                chosen.reason = if chosen.score > 0 {
                    format!("{}; opposes {} so the panel disagrees", chosen.reason, member.def.name)
                } else {
                    format!("Opposes {} so the panel disagrees", member.def.name)
                };
                let replaced = std::mem::replace(&mut panel[seat], chosen);
                ranked.insert(0, replaced);
                return Ok(());
            }
        }
    }
    let names: Vec<&str> = panel.iter().map(|c| c.def.name.as_str()).collect();
    Err(SelectionError::NoOpposition(names.join(", ")))
}

fn quoted(words: &[&str]) -> String {
    words.iter().map(|w| format!("\u{201c}{w}\u{201d}")).collect::<Vec<_>>().join(", ")
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moderator::analysis::analyse;

    fn panel(question: &str, request: &Request) -> Result<Vec<String>, SelectionError> {
        let catalog = Catalog::build(&[]).unwrap();
        let seats = select(&catalog, question, &analyse(question), request)?;
        Ok(seats.into_iter().map(|p| p.perspective.name).collect())
    }

    /// Issue 32: keywords are whole words or stems, and a word that is a keyword of its
    /// own is not another's stem: a billing service is no question of the bill.
    #[test]
    fn billing_is_not_the_bill() {
        let question = "Should the billing service keep its own database or share the orders database?";
        let seats = panel(question, &Request::default()).unwrap();
        assert!(seats.contains(&"Data Integrity".to_string()), "{seats:?}");
        assert!(!seats.contains(&"Cost Control".to_string()), "{seats:?}");
        assert!(!analyse(question).domains.contains(&"cost".to_string()), "{:?}", analyse(question).domains);
        let bill = panel("Our cloud bill doubled: reserved instances or spot?", &Request::default()).unwrap();
        assert!(bill.contains(&"Cost Control".to_string()), "{bill:?}");
    }

    #[test]
    fn a_message_broker_is_the_messaging_domain() {
        for question in ["Kafka or RabbitMQ for the order events?", "Should our services talk through a message queue?"]
        {
            assert_eq!(analyse(question).domains.first().map(String::as_str), Some("messaging"), "{question}");
        }
    }

    #[test]
    fn forced_names_are_kept_and_size_respected() {
        let forced = vec!["security advocate".to_string()];
        let names =
            panel("Should we use Redis or Postgres for caching?", &Request { size: Some(3), forced: &forced }).unwrap();
        assert_eq!(names.len(), 3);
        assert_eq!(names[0], "Security Advocate");
    }

    #[test]
    fn unknown_with_name_is_an_error_listing_known_names() {
        let forced = vec!["Wizard".to_string()];
        let err = panel("Redis or Postgres?", &Request { size: None, forced: &forced }).unwrap_err().to_string();
        assert!(err.contains("\"Wizard\"") && err.contains("Performance Advocate"), "{err}");
    }

    #[test]
    fn forced_names_that_agree_fill_every_seat_is_an_error() {
        let forced = vec!["Performance Advocate".to_string(), "Reliability Engineer".to_string()];
        let err = panel("Redis or Postgres?", &Request { size: Some(2), forced: &forced }).unwrap_err();
        assert!(matches!(err, SelectionError::NoOpposition(_)), "{err}");
    }

    #[test]
    fn more_forced_names_than_seats_is_an_error() {
        let forced =
            vec!["Cost Control".to_string(), "Performance Advocate".to_string(), "Security Advocate".to_string()];
        assert!(panel("Redis or Postgres?", &Request { size: Some(2), forced: &forced }).is_err());
    }

    #[test]
    fn refinement_keeps_the_rules() {
        let refine = |catalog: &Catalog, proposed: &[Seat], forced: &[String], answer: &str| {
            let choice = crate::moderator::answers::read::<PanelChoice>(answer).ok()?;
            refine(catalog, proposed, forced, None, &choice)
        };
        let catalog = Catalog::build(&[]).unwrap();
        let q = "Should we use Redis or Postgres for caching?";
        let proposed = select(&catalog, q, &analyse(q), &Request::default()).unwrap();
        let good = r#"{"perspectives": [{"name": "Cost Control", "reason": "budget"}, {"name": "performance advocate", "reason": ""}]}"#;
        let seats = refine(&catalog, &proposed, &[], good).unwrap();
        assert_eq!(seats[0].name(), "Cost Control");
        let earlier = proposed.iter().find(|p| p.name() == "Performance Advocate").unwrap();
        assert_eq!(seats[1].reason, earlier.reason, "an empty reason keeps the keyword reason");
        // Not in the catalog, wrong count, nobody opposing, or a forced name dropped: rejected.
        assert!(
            refine(&catalog, &proposed, &[], r#"{"perspectives": [{"name": "Wizard"}, {"name": "Cost Control"}]}"#)
                .is_none()
        );
        assert!(refine(&catalog, &proposed, &[], r#"{"perspectives": [{"name": "Cost Control"}]}"#).is_none());
        assert!(
            refine(
                &catalog,
                &proposed,
                &[],
                r#"{"perspectives": [{"name": "Performance Advocate"}, {"name": "Reliability Engineer"}]}"#
            )
            .is_none()
        );
        assert!(refine(&catalog, &proposed, &["Security Advocate".into()], good).is_none());
        assert!(refine(&catalog, &proposed, &[], "{}").is_none());
        // The moderator may change the panel's size, unless the user fixed it.
        let three = r#"{"perspectives": [{"name": "Cost Control"}, {"name": "Performance Advocate"}, {"name": "Data Integrity"}]}"#;
        assert_eq!(refine(&catalog, &proposed, &[], three).map(|s| s.len()), Some(3));
        let choice = crate::moderator::answers::read::<PanelChoice>(three).unwrap();
        assert!(super::refine(&catalog, &proposed, &[], Some(2), &choice).is_none());
    }

    #[test]
    fn the_moderator_may_name_the_options() {
        let read = |answer: &str| refine_options(&crate::moderator::answers::read::<PanelChoice>(answer).unwrap());
        assert_eq!(
            read(r#"{"options": ["Redis", "Postgres UNLOGGED tables", "redis", "Keep what we have."]}"#),
            Some(vec!["Redis".to_string(), "Postgres UNLOGGED tables".into(), "Keep what we have".into()])
        );
        assert_eq!(read(r#"{"options": ["Only one"]}"#), None, "one option is no choice");
        assert_eq!(read(r#"{"options": ["a", "b", "c", "d", "e", "f"]}"#), None, "at most five");
        assert_eq!(read(&format!(r#"{{"options": ["a", "{}"]}}"#, "x".repeat(81))), None, "a few words each");
    }

    fn with_custom(yaml: &str) -> Catalog {
        let file: crate::model::CatalogFile = crate::text::yaml::parse(yaml, "custom.yaml").unwrap();
        Catalog::build(&[crate::model::CatalogOverlay { origin: "custom.yaml".into(), entries: file.perspectives }])
            .unwrap()
    }

    #[test]
    fn a_custom_perspective_whose_keywords_all_match_wins_a_tie() {
        let catalog = with_custom(concat!(
            "perspectives:\n",
            "  - name: Accessibility Champion\n",
            "    priorities: [screen readers]\n",
            "    trade_offs: slower delivery\n",
            "    keywords: [screen reader, accessibility]\n",
            "    opposes: [Developer Velocity]\n",
            "    domains: [ux]\n",
        ));
        let q = "Our app is unusable with a screen reader; how do we fit accessibility fixes into the roadmap?";
        let ranked = rank(&catalog, q, &analyse(q));
        assert_eq!(ranked[0].def.name, "Accessibility Champion");
        assert_eq!(ranked[0].score, ranked[1].score, "a tie with {}", ranked[1].def.name);
    }

    #[test]
    fn the_names_of_the_options_are_no_keywords() {
        let catalog = with_custom(concat!(
            "perspectives:\n",
            "  - name: Redis Fan\n",
            "    priorities: [redis everywhere]\n",
            "    trade_offs: everything else\n",
            "    keywords: [redis]\n",
            "    opposes: [Data Integrity]\n",
        ));
        let score = |q: &str| rank(&catalog, q, &analyse(q)).into_iter().find(|c| c.def.name == "Redis Fan").unwrap();
        let named = score("Should we use Redis or Postgres as the queue for our billing jobs?");
        assert_eq!(named.score, 0, "{}", named.reason);
        let proposed = score("Can we use Redis as the primary store for account balances?");
        assert!(proposed.reason.contains("mentions \u{201c}redis\u{201d}"), "{}", proposed.reason);
    }

    #[test]
    fn selection_is_deterministic() {
        let q = "How should we handle authentication for the mobile app?";
        assert_eq!(panel(q, &Request::default()), panel(q, &Request::default()));
    }
}
