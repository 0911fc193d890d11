//! The offline provider: composes arguments from the catalog's priorities and the
//! options in the question. No network, no key, and no model reasoning — it is
//! labelled as such wherever its words appear.

use async_trait::async_trait;

use super::{Brief, Counted, Provider, Request, Result};
use crate::model::{
    Completion, Confidence, Identity, OptionAssessment, PerspectiveDef, PerspectiveSummary, ProviderKind, Purpose,
    Stance, Synthesis, derive_guards,
};

pub const OFFLINE_LABEL: &str = "the offline provider (composed from the catalog, not reasoned by a model)";

pub struct Offline;

#[async_trait]
impl Provider for Offline {
    fn identity(&self) -> Identity {
        Identity { kind: ProviderKind::Offline, reasoned: false }
    }

    async fn complete(&self, request: &Request) -> Result<Completion> {
        let text = match (&request.purpose, &request.brief) {
            (Purpose::Argument, Brief::Debater { perspective, seat, question, options, others, guidance }) => {
                let text = argument(perspective, *seat, question, options, others, request.round);
                let text = match guidance {
                    Some(guidance) => {
                        format!("{text}\n\n{}", heeding(guidance, perspective, *seat, options, request.round))
                    }
                    None => text,
                };
                with_stance(text, perspective, *seat, options)
            }
            (Purpose::Rebuttal, Brief::Debater { perspective, seat, options, others, .. }) => {
                let text = rebuttal(perspective, *seat, options, others, request.round);
                with_stance(text, perspective, *seat, options)
            }
            (Purpose::Clarification, Brief::Clarification { questions }) => {
                json(&serde_json::json!({ "vague": true, "questions": questions }))
            }
            // The moderator's own local reading of the round, as a model would write it.
            (Purpose::Evaluation, Brief::Evaluation { local }) => json(local),
            (Purpose::Synthesis, Brief::Synthesis { panel, options, stances }) => {
                json(&synthesis(panel, options, stances))
            }
            // The marks the record's checks give, each under its criterion's name.
            (Purpose::Scoring, Brief::Scoring { local }) => json(
                &local
                    .iter()
                    .map(|m| {
                        (m.criterion.as_str().to_string(), serde_json::json!({"score": m.score, "reason": m.reason}))
                    })
                    .collect::<serde_json::Map<_, _>>(),
            ),
            // Analysis: keep the keyword panel as it is.
            _ => "{}".to_string(),
        };
        Ok(Counted::default().completion(request, text, "offline"))
    }
}

/// The option a seat leans to: seats take the named options in turn, so a binary
/// question gets one debater on each side.
fn favoured(options: &[String], seat: usize) -> Option<&String> {
    (!options.is_empty()).then(|| &options[seat % options.len()])
}

/// The contribution with the stance line every debater ends with: the seat's option.
fn with_stance(text: String, p: &PerspectiveDef, seat: usize, options: &[String]) -> String {
    let Some(option) = favoured(options, seat) else { return text };
    let stance = serde_json::json!({
        "option": option,
        "confidence": "low",
        "would_change_if": format!("another option serves {} better", p.priorities[0]),
        "concedes": "the other options have merits this catalog entry does not weigh",
    });
    format!("{text}\n\n{} {stance}", Stance::MARKER)
}

fn priority(p: &PerspectiveDef, round: u32) -> &str {
    &p.priorities[(round as usize - 1) % p.priorities.len()]
}

fn argument(
    p: &PerspectiveDef,
    seat: usize,
    question: &str,
    options: &[String],
    others: &[PerspectiveDef],
    round: u32,
) -> String {
    let focus = priority(p, round);
    let stance = match favoured(options, seat) {
        Some(option) => format!("{option} is the better fit, because it serves {focus} most directly"),
        None => format!("the answer to \u{201c}{}\u{201d} should be judged first on {focus}", question.trim()),
    };
    let rival = others.first().map_or(String::new(), |o| {
        format!(" Where {} would optimise for {}, this perspective holds that {focus} decides the outcome over the life of the system.", o.name, o.priorities[0])
    });
    format!(
        "{stance}. {name} weighs {all} and {trade}.{rival} \
         The point to settle in round {round} is how each option behaves on {focus}: what it costs to get right, and what breaks first when it is neglected.",
        name = p.name,
        all = p.priorities.join(", "),
        trade = p.trade_offs.to_lowercase(),
    )
}

/// The guidance in force, taken up after the argument's position: quoted, read through
/// the round's priority, and set against the seat's option when it names an option.
fn heeding(guidance: &str, p: &PerspectiveDef, seat: usize, options: &[String], round: u32) -> String {
    let focus = priority(p, round);
    let lowered = guidance.to_lowercase();
    let named: Vec<&String> = options.iter().filter(|o| lowered.contains(&o.to_lowercase())).collect();
    let bearing = match (favoured(options, seat), named.as_slice()) {
        (_, []) | (None, _) => String::new(),
        (Some(mine), named) if named.contains(&mine) => {
            format!(" It names {mine}, the option this perspective favours: it counts for {mine} on {focus}.")
        }
        (Some(mine), named) => {
            let names: Vec<&str> = named.iter().map(|o| o.as_str()).collect();
            format!(
                " It names {}, not {mine}: this perspective answers it with what that costs on {focus}.",
                names.join(" and ")
            )
        }
    };
    format!(
        "Taking the guidance into account (\u{201c}{}\u{201d}): {} weighs it against {focus}.{bearing}",
        guidance.trim(),
        p.name
    )
}

fn rebuttal(p: &PerspectiveDef, seat: usize, options: &[String], others: &[PerspectiveDef], round: u32) -> String {
    let focus = priority(p, round);
    let mine = favoured(options, seat).map_or("this perspective's position".to_string(), |o| o.clone());
    others
        .iter()
        .map(|o| {
            let theirs = o.priorities[(round as usize - 1) % o.priorities.len()].as_str();
            format!(
                "To {}: {theirs} matters, but not at the expense of {focus}; {mine} keeps {focus} within reach while {theirs} can be recovered later.",
                o.name
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn json<T: serde::Serialize>(answer: &T) -> String {
    serde_json::to_string(answer).expect("answers serialise")
}

/// The moderator's synthesis, composed: each perspective's priorities and where its
/// latest stance ended (`stances`, per seat), agreement only when every stance names the
/// same option, and no chosen option or reasoning that no model did.
fn synthesis(panel: &[PerspectiveDef], options: &[String], stances: &[Option<String>]) -> Synthesis {
    let ended = |seat: usize| stances.get(seat).and_then(Option::as_ref);
    let perspectives = panel
        .iter()
        .enumerate()
        .map(|(seat, p)| {
            let lean = ended(seat).map_or(String::new(), |o| format!("ended on {o}; "));
            PerspectiveSummary {
                name: p.name.clone(),
                key_arguments: vec![format!("{lean}optimises for {}", p.priorities.join(", "))],
                trade_offs_accepted: vec![p.trade_offs.clone()],
            }
        })
        .collect();
    let tensions: Vec<String> = panel
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            panel[i + 1..]
                .iter()
                .filter(|b| a.opposes.contains(&b.name) || b.opposes.contains(&a.name))
                .map(move |b| (a, b))
        })
        .map(|(a, b)| format!("{} ({}) against {} ({})", a.name, a.priorities[0], b.name, b.priorities[0]))
        .collect();
    let subject = if options.is_empty() { "the options".to_string() } else { options.join(" or ") };
    let start = if tensions.is_empty() { "" } else { ", starting with the key tensions" };
    // Where every stance ended on one option, what the others alone bring is forbidden:
    // the table's reading of the options, no model's.
    let guards = agreed(stances).map_or_else(Vec::new, |together| {
        let set_aside: Vec<&str> = options.iter().filter(|o| *o != together).map(String::as_str).collect();
        derive_guards(together, &set_aside, &[]).iter().map(ToString::to_string).collect()
    });
    // No model names the decision: the question's own title stands.
    Synthesis {
        perspectives,
        options: options
            .iter()
            .map(|option| {
                let pros = (0..panel.len())
                    .filter(|seat| ended(*seat) == Some(option))
                    .map(|seat| format!("favoured by {} at the end (catalog priorities)", panel[seat].name))
                    .collect();
                OptionAssessment { option: option.clone(), pros, cons: Vec::new() }
            })
            .collect(),
        agreement: agreed(stances).map(|o| format!("Every perspective ended on {o}.")).into_iter().collect(),
        tensions,
        recommendation: format!(
            "No model reasoned about this question: its arguments were composed from the perspective catalog. \
             Weigh {subject} against this project's own criteria{start}; \
             run the debate again with a configured provider for a reasoned recommendation."
        ),
        confidence: Confidence::Low,
        more: [("guards".to_string(), guards.into())].into_iter().collect(),
        // What the record's notice already says is no caveat of the decision, and no
        // model wrote what follows from it or what to do.
        ..Synthesis::default()
    }
}

/// The option every seat's stance names, if there are stances and all name the same.
fn agreed(stances: &[Option<String>]) -> Option<&String> {
    let first = stances.first()?.as_ref()?;
    stances.iter().all(|s| s.as_ref() == Some(first)).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    fn panel() -> Vec<PerspectiveDef> {
        fixture::state().panel.into_iter().map(|s| s.perspective).collect()
    }

    fn options() -> Vec<String> {
        vec!["Redis".into(), "Postgres".into()]
    }

    /// What the offline provider argues at seat 0 in round 2, with this guidance in force.
    async fn argued(guidance: Option<&str>) -> String {
        let panel = panel();
        let request = Request {
            purpose: Purpose::Argument,
            round: 2,
            perspective: Some(panel[0].name.clone()),
            system: String::new(),
            context: String::new(),
            prompt: String::new(),
            shared: 0,
            cache_key: None,
            max_tokens: None,
            temperature: 0.8,
            schema: None,
            on_text: None,
            on_retry: None,
            budget: crate::providers::Budget::default(),
            stop: None,
            brief: Brief::Debater {
                perspective: panel[0].clone(),
                seat: 0,
                question: fixture::QUESTION.into(),
                options: options(),
                others: panel[1..].to_vec(),
                guidance: guidance.map(str::to_string),
            },
        };
        Offline.complete(&request).await.unwrap().text
    }

    #[tokio::test]
    async fn an_argument_takes_up_the_guidance_in_force() {
        let plain = argued(None).await;
        assert!(!plain.contains("guidance"), "{plain}");
        let guided = argued(Some("Weigh our team's PostgreSQL experience")).await;
        let (position, rest) = plain.split_once(". ").unwrap();
        assert!(guided.starts_with(position), "the position still opens the argument: {guided}");
        let heeded = "\n\nTaking the guidance into account (\u{201c}Weigh our team's PostgreSQL experience\u{201d})";
        assert!(guided.contains(heeded), "{guided}");
        assert!(guided.contains(rest.lines().next().unwrap()), "{guided}");
        assert!(
            guided.contains("It names Postgres, not Redis"),
            "the guidance names the other seat's option: {guided}"
        );
        assert!(guided.ends_with(plain.lines().last().unwrap()), "the same stance: {guided}");
        assert_eq!(guided, argued(Some("Weigh our team's PostgreSQL experience")).await, "deterministic");
        let own = argued(Some("Redis is already in our stack")).await;
        assert!(own.contains("It names Redis, the option this perspective favours"), "{own}");
    }

    #[test]
    fn agreement_is_stated_only_when_every_stance_names_the_same_option() {
        let apart = synthesis(&panel(), &options(), &[Some("Redis".into()), Some("Postgres".into())]);
        assert!(apart.agreement.is_empty(), "{:?}", apart.agreement);
        let unread = synthesis(&panel(), &options(), &[Some("Postgres".into()), None]);
        assert!(unread.agreement.is_empty(), "a stance not read shows no agreement: {:?}", unread.agreement);
        let together = synthesis(&panel(), &options(), &[Some("Postgres".into()), Some("Postgres".into())]);
        assert_eq!(together.agreement, ["Every perspective ended on Postgres."]);
        assert_eq!(together.options[1].pros.len(), 2, "both favour Postgres: {:?}", together.options);
        assert!(together.options[0].pros.is_empty(), "nobody ended on Redis: {:?}", together.options);
    }

    #[test]
    fn guards_come_from_the_table_only_where_every_stance_ended_together() {
        let together = synthesis(&panel(), &options(), &[Some("Postgres".into()), Some("Postgres".into())]);
        let guards: Vec<String> = together.guards().iter().map(ToString::to_string).collect();
        assert_eq!(guards, ["forbid dependency redis"]);
        let apart = synthesis(&panel(), &options(), &[Some("Redis".into()), Some("Postgres".into())]);
        assert!(apart.guards().is_empty(), "{:?}", apart.more);
    }

    #[test]
    fn the_recommendation_says_no_model_reasoned_and_points_nowhere_in_the_record() {
        let s = synthesis(&panel(), &options(), &[Some("Redis".into()), Some("Postgres".into())]);
        assert!(s.recommendation.starts_with("No model reasoned about this question"), "{}", s.recommendation);
        for placed in ["above", "below"] {
            assert!(!s.recommendation.contains(placed), "claims an order of sections: {}", s.recommendation);
        }
        assert!(s.recommendation.contains("starting with the key tensions"), "{}", s.recommendation);
        assert!(s.caveats.is_empty() && s.chosen_option.is_none() && s.dissents.is_empty());
        // Perspectives the catalog does not oppose have no tensions to start with.
        let mut unopposed = panel();
        unopposed.iter_mut().for_each(|p| p.opposes.clear());
        let s = synthesis(&unopposed, &options(), &[None, None]);
        assert!(s.tensions.is_empty() && !s.recommendation.contains("tensions"), "{}", s.recommendation);
    }
}
