//! The two requests of the ssh-agent protocol a signature needs, for ed25519 keys only
//! (draft-miller-ssh-agent, sections 3.5 and 3.6): which keys the agent holds, and a
//! signature of some bytes by one of them. Written here rather than taken from an agent
//! client crate: the ones there are bring RSA with them (the `rsa` crate, with its
//! timing side channel RUSTSEC-2023-0071), for keys debate never signs with; and
//! `ssh-keygen -Y sign`, which git runs, makes only SSH signatures, not the plain
//! Ed25519 signature a receipt needs.
//!
//! Each message is a uint32 length and then that many bytes: a type byte and its
//! fields, every "string" itself a uint32 length and its bytes.

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use super::error::{AttestError, Result};

/// How long the agent may take to answer: it may ask its user to confirm a
/// signature (`ssh-add -c`), but a hung agent must not hang the command.
const TIMEOUT: Duration = Duration::from_secs(60);

const FAILURE: u8 = 5;
const REQUEST_IDENTITIES: u8 = 11;
const IDENTITIES_ANSWER: u8 = 12;
const SIGN_REQUEST: u8 = 13;
const SIGN_RESPONSE: u8 = 14;
/// An answer longer than this is no agent's (OpenSSH's own limit is 256 KiB).
const LONGEST: usize = 256 << 10;

const ED25519: &[u8] = b"ssh-ed25519";

/// An ssh-agent at its socket, connected to for each request.
pub struct Agent<'a> {
    socket: &'a Path,
}

impl Agent<'_> {
    pub fn at(socket: &Path) -> Agent<'_> {
        Agent { socket }
    }

    /// The ed25519 public keys the agent holds (its other keys left out).
    pub fn ed25519_keys(&self) -> Result<Vec<[u8; 32]>> {
        let answer = self.ask(&[REQUEST_IDENTITIES], IDENTITIES_ANSWER, "list its keys")?;
        let mut reader = Fields(&answer);
        let count = reader.u32()?;
        let mut keys = Vec::new();
        for _ in 0..count {
            let blob = reader.string()?;
            reader.string()?; // the comment
            if let Some(key) = ed25519_of(blob) {
                keys.push(key);
            }
        }
        Ok(keys)
    }

    /// The Ed25519 signature (RFC 8032) of `data` by the held key `public`.
    pub fn sign(&self, public: &[u8; 32], data: &[u8]) -> Result<[u8; 64]> {
        let mut request = vec![SIGN_REQUEST];
        put_string(&mut request, &key_blob(public));
        put_string(&mut request, data);
        request.extend_from_slice(&0u32.to_be_bytes()); // no flags: they choose RSA hashes
        let answer = self.ask(&request, SIGN_RESPONSE, "sign")?;
        let mut blob = Fields(Fields(&answer).string()?);
        let algorithm = blob.string()?;
        if algorithm != ED25519 {
            return Err(AttestError::Agent(format!("signed with {}, not ed25519", String::from_utf8_lossy(algorithm))));
        }
        let signature = blob.string()?;
        signature
            .try_into()
            .map_err(|_| AttestError::Agent(format!("gave a signature of {} bytes, not 64", signature.len())))
    }

    /// Send `request` and read the answer of type `expected`, as its fields.
    fn ask(&self, request: &[u8], expected: u8, what: &str) -> Result<Vec<u8>> {
        let shown = self.socket.display();
        let mut stream = crate::platform::agent::connect(self.socket, TIMEOUT)
            .map_err(|err| AttestError::Agent(format!("cannot connect to {shown}: {err}")))?;
        let broken = |err: std::io::Error| AttestError::Agent(format!("the connection to {shown} broke: {err}"));
        let mut message = (request.len() as u32).to_be_bytes().to_vec();
        message.extend_from_slice(request);
        stream.write_all(&message).map_err(broken)?;
        let mut length = [0; 4];
        stream.read_exact(&mut length).map_err(broken)?;
        let length = u32::from_be_bytes(length) as usize;
        if length == 0 || length > LONGEST {
            return Err(AttestError::Agent(format!("answered with a message of {length} bytes")));
        }
        let mut answer = vec![0; length];
        stream.read_exact(&mut answer).map_err(broken)?;
        match answer[0] {
            kind if kind == expected => Ok(answer.split_off(1)),
            FAILURE => Err(AttestError::Agent(format!("refused to {what}"))),
            other => Err(AttestError::Agent(format!("answered {other} where {expected} was expected"))),
        }
    }
}

/// An ed25519 key as the agent protocol names it: string "ssh-ed25519", string key.
fn key_blob(public: &[u8; 32]) -> Vec<u8> {
    let mut blob = Vec::new();
    put_string(&mut blob, ED25519);
    put_string(&mut blob, public);
    blob
}

/// The ed25519 key a key blob holds; `None` for any other kind.
fn ed25519_of(blob: &[u8]) -> Option<[u8; 32]> {
    let mut fields = Fields(blob);
    (fields.string().ok()? == ED25519).then_some(())?;
    fields.string().ok()?.try_into().ok()
}

fn put_string(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(bytes);
}

/// The fields of a message, read in turn; any that runs past the end is an error.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn u32(&mut self) -> Result<u32> {
        let (head, rest) = self.0.split_first_chunk::<4>().ok_or_else(short)?;
        self.0 = rest;
        Ok(u32::from_be_bytes(*head))
    }

    fn string(&mut self) -> Result<&'a [u8]> {
        let length = self.u32()? as usize;
        let (string, rest) = self.0.split_at_checked(length).ok_or_else(short)?;
        self.0 = rest;
        Ok(string)
    }
}

fn short() -> AttestError {
    AttestError::Agent("answered with a message cut short".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_blob_reads_back_and_other_kinds_are_not_ed25519() {
        let key = [7u8; 32];
        assert_eq!(ed25519_of(&key_blob(&key)), Some(key));
        let mut rsa = Vec::new();
        put_string(&mut rsa, b"ssh-rsa");
        put_string(&mut rsa, &[1, 0, 1]);
        assert_eq!(ed25519_of(&rsa), None);
        let mut short_key = Vec::new();
        put_string(&mut short_key, ED25519);
        put_string(&mut short_key, &[1; 31]);
        assert_eq!(ed25519_of(&short_key), None);
    }

    #[test]
    fn fields_past_the_end_are_an_error_not_a_panic() {
        assert!(Fields(&[0, 0, 0]).u32().is_err());
        assert!(Fields(&[0, 0, 0, 9, 1, 2]).string().is_err());
        let mut fields = Fields(&[0, 0, 0, 2, b'h', b'i', 0, 0, 0, 1]);
        assert_eq!(fields.string().unwrap(), b"hi");
        assert_eq!(fields.u32().unwrap(), 1);
    }
}
