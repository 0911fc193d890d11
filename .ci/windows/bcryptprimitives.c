/* Rust's standard library takes its random bytes from ProcessPrng in bcryptprimitives.dll,
 * which Wine 8 lacks. This stand-in, put beside debate.exe (Wine loads a DLL from the
 * program's folder first), answers from RtlGenRandom. For Wine only: Windows 10 and later
 * ship the real one. Built by .ci/wine. */
#include <windows.h>
#include <ntsecapi.h>
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) { return RtlGenRandom(data, (ULONG)len); }
