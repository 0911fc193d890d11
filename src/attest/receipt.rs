//! A decision as an Open Decision Receipt v0.2, the document a peer's verifier
//! (`aragora-verify` 0.2.0) checks: its members exactly as that verifier's schema
//! allows them (no member it does not know, an `absent` marker with a reason where
//! there is nothing to say), built from plain inputs so any front end can make one.
//! Signing and verifying it are `odr`'s.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::error::{AttestError, Result};

/// The receipt format's version; it also chooses what a signature covers.
pub const ODR_VERSION: &str = "0.2";
/// The profile a v0.2 receipt names, which the verifier checks against the version.
pub const PROFILE: &str = "https://aragora.ai/specs/open-decision-receipt/v0.2";

/// A decision as plain values: what a receipt is made from.
#[derive(Debug, Clone)]
pub struct Decision {
    /// The receipt's id, unique to the decision (a debate's id).
    pub id: String,
    /// What the receipt is about, e.g. `debate:docs/decisions/0007-redis.md`.
    pub subject: String,
    /// The SHA-256 (hex) of the record the decision was written in, if any.
    pub record_sha256: Option<String>,
    /// The question debated.
    pub question: String,
    /// The option chosen, if one was.
    pub chosen: Option<String>,
    /// The decision as the record states it.
    pub decision: String,
    /// Why, in a paragraph.
    pub reasoning: Option<String>,
    /// Everyone who argued, with the model that spoke for them.
    pub participants: Vec<Participant>,
    /// The final confidence, from 0 to 1.
    pub confidence: Option<f64>,
    /// The questions the decision turns on.
    pub cruxes: Vec<String>,
    /// The person who accepted the decision, if a person did; otherwise the decision
    /// is the panel's alone.
    pub accepted_by: Option<Acceptance>,
    /// When the decision was made.
    pub decided_at: DateTime<Utc>,
    /// The version of the program that made the receipt.
    pub tool_version: String,
}

/// One seat of the panel.
#[derive(Debug, Clone)]
pub struct Participant {
    /// Its name (a perspective), unique in the panel.
    pub agent: String,
    /// The model that argued for it, e.g. `gpt-4.1`.
    pub model_id: String,
    /// The model's family (its maker), e.g. `openai`; `undisclosed` when unknown.
    pub model_family: String,
    /// Where it stood at the end.
    pub stance: Stance,
}

/// Where a participant stood on the decision at the end.
#[derive(Debug, Clone, PartialEq)]
pub enum Stance {
    Supports,
    /// Against, in its own words.
    Dissents(String),
    /// Neither: it stopped answering, or took no side.
    Abstains,
}

/// A person's acceptance of the decision.
#[derive(Debug, Clone)]
pub struct Acceptance {
    /// Who, as an id (an email address).
    pub id: String,
    pub name: Option<String>,
    pub at: DateTime<Utc>,
}

/// An Open Decision Receipt v0.2. Serialized, it is the JSON the verifier reads.
#[derive(Debug, Clone, Serialize)]
pub struct Receipt {
    pub odr_version: String,
    pub profile: String,
    pub receipt_id: String,
    pub issued_at: String,
    pub subject: Subject,
    pub claim: Claim,
    pub reasoning: Block<Reasoning>,
    pub quorum: Block<Quorum>,
    pub confidence: Block<Confidence>,
    pub cruxes: Block<Cruxes>,
    pub attestation: Attestation,
    pub routing: Routing,
    pub source: Source,
    pub signatures: Vec<SignatureEntry>,
}

/// A member that is either given or absent for a stated reason.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Block<T> {
    Present(T),
    Absent { reason: String },
}

#[derive(Debug, Clone, Serialize)]
pub struct Subject {
    pub identifier: String,
    pub digest: Block<SubjectDigest>,
    pub summary: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SubjectDigest {
    pub alg: String,
    pub value: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Claim {
    pub verdict: String,
    pub statement: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Reasoning {
    pub summary: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Quorum {
    pub method: String,
    pub reached: bool,
    pub supporting_agents: Vec<String>,
    pub participants: Vec<Agent>,
    pub independence: Independence,
    pub dissent: Dissent,
}

#[derive(Debug, Clone, Serialize)]
pub struct Agent {
    pub agent: String,
    pub model_family: String,
    pub model_id: String,
}

/// How independent the panel's judgements are: how many makers' models sat on it.
#[derive(Debug, Clone, Serialize)]
pub struct Independence {
    pub disclosed: bool,
    pub distinct_model_families: usize,
    pub model_families: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Dissent {
    pub present: bool,
    pub dissenting_agents: Vec<String>,
    pub views: Vec<String>,
    /// ODR 0.2's itemised dissent, which verifiers show as the dissent trail: each
    /// dissenting seat's view, advisory (a dissent does not block a decision).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub issuer: String,
    /// `P2`: advisory.
    pub severity: &'static str,
    pub blocking: bool,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Confidence {
    pub value: f64,
    pub scale: String,
    /// Where the confidence's calibration is recorded; debate keeps no such record.
    pub calibration: Block<Calibration>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Calibration {
    pub provenance_ref: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cruxes {
    pub items: Vec<Crux>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Crux {
    pub question: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Attestation {
    pub disposition: Disposition,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attestor: Option<Attestor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attested_at: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    /// A person accepted the decision.
    HumanAttested,
    /// The decision is the panel's alone.
    Autonomous,
}

#[derive(Debug, Clone, Serialize)]
pub struct Attestor {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Reserved by the format for later use: always `{"status": "reserved"}`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Routing {
    Reserved,
}

/// What made the receipt.
#[derive(Debug, Clone, Serialize)]
pub struct Source {
    pub system: String,
    pub schema: String,
    pub schema_version: String,
    pub receipt_id: String,
}

/// One signature over the receipt (see `odr`): every member but `signature` is
/// covered by it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SignatureEntry {
    pub alg: String,
    pub key_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    pub signature: String,
}

/// Who a signer is to the receipt.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Made it (the author of the decision).
    Emitter,
    /// Reviewed it and stands behind it.
    Reviewer,
    Attestor,
    Notary,
}

/// A time as receipts write it: RFC 3339 in UTC to the second, `2026-05-20T14:05:30Z`
/// (the one form every version of the verifier's Python parses).
pub fn timestamp(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

impl Receipt {
    /// The receipt of `decision`, unsigned. Inputs the format cannot carry (an empty
    /// statement, a confidence outside 0..1, two seats of one name) are errors.
    pub fn new(decision: &Decision) -> Result<Receipt> {
        let required = |what: &str, value: &str| match value.trim().is_empty() {
            true => Err(AttestError::Receipt(format!("a receipt needs {what}"))),
            false => Ok(()),
        };
        required("an id", &decision.id)?;
        required("a subject", &decision.subject)?;
        required("the decision's text", &decision.decision)?;
        Ok(Receipt {
            odr_version: ODR_VERSION.into(),
            profile: PROFILE.into(),
            receipt_id: decision.id.clone(),
            issued_at: timestamp(decision.decided_at),
            subject: Subject {
                identifier: decision.subject.clone(),
                digest: match &decision.record_sha256 {
                    Some(value) => Block::Present(SubjectDigest { alg: "sha256".into(), value: value.clone() }),
                    None => absent("the decision has no record"),
                },
                summary: decision.question.clone(),
            },
            claim: Claim {
                verdict: decision.chosen.clone().filter(|c| !c.trim().is_empty()).unwrap_or("undecided".into()),
                statement: decision.decision.clone(),
            },
            reasoning: match &decision.reasoning {
                Some(summary) if !summary.trim().is_empty() => Block::Present(Reasoning { summary: summary.clone() }),
                _ => absent("the decision gives no reasoning"),
            },
            quorum: quorum(&decision.participants)?,
            confidence: match decision.confidence {
                None => absent("the decision states no confidence"),
                Some(value) if (0.0..=1.0).contains(&value) => Block::Present(Confidence {
                    value,
                    scale: "unit_interval".into(),
                    calibration: absent("no calibration history for this emitter"),
                }),
                Some(value) => {
                    return Err(AttestError::Receipt(format!("a confidence of {value} is not between 0 and 1")));
                }
            },
            cruxes: match decision.cruxes.iter().filter(|c| !c.trim().is_empty()).collect::<Vec<_>>() {
                cruxes if cruxes.is_empty() => absent("the debate named no crux"),
                cruxes => Block::Present(Cruxes {
                    items: cruxes.into_iter().map(|question| Crux { question: question.clone() }).collect(),
                }),
            },
            attestation: match &decision.accepted_by {
                Some(person) => Attestation {
                    disposition: Disposition::HumanAttested,
                    attestor: Some(Attestor { id: person.id.clone(), name: person.name.clone() }),
                    attested_at: Some(timestamp(person.at)),
                },
                None => Attestation { disposition: Disposition::Autonomous, attestor: None, attested_at: None },
            },
            routing: Routing::Reserved,
            source: Source {
                system: "debate".into(),
                schema: "debate-decision-record".into(),
                // The record's format is the program's, versioned with it.
                schema_version: decision.tool_version.clone(),
                receipt_id: decision.id.clone(),
            },
            signatures: Vec::new(),
        })
    }
}

fn absent<T>(reason: &str) -> Block<T> {
    Block::Absent { reason: reason.to_string() }
}

/// The panel as a quorum: a majority of its seats supporting the decision reaches
/// it; every name in the supporting and dissenting lists is a participant, as the
/// verifier checks.
fn quorum(participants: &[Participant]) -> Result<Block<Quorum>> {
    if participants.is_empty() {
        return Ok(absent("the panel is not disclosed"));
    }
    let mut names = BTreeSet::new();
    for seat in participants {
        if seat.agent.trim().is_empty() || !names.insert(seat.agent.as_str()) {
            return Err(AttestError::Receipt(format!("the panel's seat names are not unique: {:?}", seat.agent)));
        }
    }
    // A seat whose model's maker is not known is counted in no family.
    let family = |seat: &Participant| match seat.model_family.trim() {
        "" => "undisclosed".to_string(),
        family => family.to_string(),
    };
    let supporting: Vec<String> =
        participants.iter().filter(|p| p.stance == Stance::Supports).map(|p| p.agent.clone()).collect();
    let dissents: Vec<(&str, &str)> = participants
        .iter()
        .filter_map(|p| match &p.stance {
            Stance::Dissents(view) => Some((p.agent.as_str(), view.as_str())),
            _ => None,
        })
        .collect();
    let dissenting = dissents.iter().map(|(agent, _)| agent.to_string()).collect::<Vec<_>>();
    let views = dissents.iter().map(|(agent, view)| format!("{agent}: {view}")).collect();
    let findings = dissents
        .iter()
        .map(|(agent, view)| Finding {
            issuer: agent.to_string(),
            severity: "P2",
            blocking: false,
            text: view.to_string(),
        })
        .collect();
    let families: BTreeSet<String> = participants.iter().map(family).collect();
    let disclosed = !families.contains("undisclosed");
    let families: Vec<String> = families.into_iter().filter(|f| f != "undisclosed").collect();
    Ok(Block::Present(Quorum {
        method: "majority".into(),
        reached: supporting.len() * 2 > participants.len(),
        supporting_agents: supporting,
        participants: participants
            .iter()
            .map(|p| Agent { agent: p.agent.clone(), model_family: family(p), model_id: p.model_id.clone() })
            .collect(),
        independence: Independence { disclosed, distinct_model_families: families.len(), model_families: families },
        dissent: Dissent { present: !dissenting.is_empty(), dissenting_agents: dissenting, views, findings },
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::attest::testing::decision;

    fn document(decision: &Decision) -> Value {
        serde_json::to_value(Receipt::new(decision).unwrap()).unwrap()
    }

    #[test]
    fn a_decision_fills_every_member_the_verifier_requires() {
        let receipt = document(&decision());
        let mut members: Vec<&str> = receipt.as_object().unwrap().keys().map(String::as_str).collect();
        members.sort();
        assert_eq!(
            members,
            [
                "attestation",
                "claim",
                "confidence",
                "cruxes",
                "issued_at",
                "odr_version",
                "profile",
                "quorum",
                "reasoning",
                "receipt_id",
                "routing",
                "signatures",
                "source",
                "subject"
            ]
        );
        assert_eq!(receipt["profile"], format!("https://aragora.ai/specs/open-decision-receipt/v{}", ODR_VERSION));
        assert_eq!(receipt["claim"], json!({"verdict": "Redis", "statement": decision().decision}));
        assert_eq!(receipt["subject"]["digest"]["status"], "present");
        assert_eq!(receipt["routing"], json!({"status": "reserved"}));
        assert_eq!(
            receipt["quorum"],
            json!({
                "status": "present",
                "method": "majority",
                "reached": true,
                "supporting_agents": ["performance", "operations"],
                "participants": [
                    {"agent": "performance", "model_family": "anthropic", "model_id": "claude-sonnet-4"},
                    {"agent": "operations", "model_family": "openai", "model_id": "gpt-4.1"},
                    {"agent": "cost", "model_family": "google", "model_id": "gemini-2.5-pro"}
                ],
                "independence": {
                    "disclosed": true,
                    "distinct_model_families": 3,
                    "model_families": ["anthropic", "google", "openai"]
                },
                "dissent": {
                    "present": true,
                    "dissenting_agents": ["cost"],
                    "views": ["cost: a second datastore doubles on-call."],
                    "findings": [{"issuer": "cost", "severity": "P2", "blocking": false, "text": "a second datastore doubles on-call."}]
                }
            })
        );
        assert_eq!(receipt["confidence"]["value"], 0.72);
        assert_eq!(receipt["confidence"]["calibration"]["status"], "absent");
        assert_eq!(receipt["cruxes"]["items"][0], json!({"question": decision().cruxes[0]}));
        assert_eq!(
            receipt["attestation"],
            json!({
                "disposition": "human_attested",
                "attestor": {"id": "alice@example.org", "name": "Alice Example"},
                "attested_at": "2026-05-20T14:05:00Z"
            })
        );
        assert_eq!(receipt["signatures"], json!([]));
    }

    #[test]
    fn what_a_decision_lacks_is_absent_with_a_reason() {
        let mut bare = decision();
        bare.record_sha256 = None;
        bare.chosen = None;
        bare.reasoning = Some("  ".into());
        bare.confidence = None;
        bare.cruxes = vec![String::new()];
        bare.accepted_by = None;
        bare.participants.truncate(1);
        bare.participants[0].model_family = String::new();
        let receipt = document(&bare);
        for member in ["reasoning", "confidence", "cruxes"] {
            assert_eq!(receipt[member]["status"], "absent", "{member}");
            assert!(!receipt[member]["reason"].as_str().unwrap().is_empty(), "{member}");
        }
        assert_eq!(receipt["subject"]["digest"]["status"], "absent");
        assert_eq!(receipt["claim"]["verdict"], "undecided");
        assert_eq!(receipt["attestation"], json!({"disposition": "autonomous"}));
        let quorum = &receipt["quorum"];
        assert_eq!(quorum["participants"][0]["model_family"], "undisclosed");
        assert_eq!(
            quorum["independence"],
            json!({"disclosed": false, "distinct_model_families": 0, "model_families": []})
        );
        assert_eq!(quorum["reached"], true);

        bare.participants.clear();
        assert_eq!(document(&bare)["quorum"]["status"], "absent");
    }

    #[test]
    fn a_quorum_needs_a_majority_of_the_seats() {
        let mut split = decision();
        split.participants[1].stance = Stance::Abstains;
        let quorum = &document(&split)["quorum"];
        assert_eq!(quorum["reached"], false);
        assert_eq!(quorum["supporting_agents"], json!(["performance"]));
    }

    #[test]
    fn what_a_receipt_cannot_carry_is_refused() {
        let refused = |change: fn(&mut Decision)| {
            let mut decision = decision();
            change(&mut decision);
            Receipt::new(&decision).unwrap_err().to_string()
        };
        assert_eq!(refused(|d| d.decision = " ".into()), "a receipt needs the decision's text");
        assert_eq!(refused(|d| d.id = String::new()), "a receipt needs an id");
        assert_eq!(refused(|d| d.confidence = Some(1.5)), "a confidence of 1.5 is not between 0 and 1");
        assert_eq!(refused(|d| d.confidence = Some(f64::NAN)), "a confidence of NaN is not between 0 and 1");
        assert!(refused(|d| d.participants[2].agent = "operations".into()).contains("\"operations\""));
    }
}
