#pragma once
// How many characters a character's writing system offers: what a model pays at best for a character it has never
// seen, when all it knows is which alphabet the character belongs to (a byte-level model spelling an unseen
// character pays at least the cost of choosing it uniformly from that alphabet).
//
// The alphabet of a code point is the set of code points that share both its Unicode Script property (ICU's
// uscript_getScript: Han, Latin, Common, ...) and its Unicode block (ICU's ublock_getCode). The block keeps the
// count to characters of the same kind:
//   '明' U+660E   Han ∩ CJK Unified Ideographs (U+4E00–U+9FFF)    20,992 characters, log₂ = 14.36 bits
//   'a'           Latin ∩ Basic Latin (A–Z, a–z)                    52 characters,  log₂ = 5.70 bits
//   '，' U+FF0C   Common ∩ Halfwidth and Fullwidth Forms
// A script alone would charge an unseen 'é' for every Latin letter in Unicode (about 1,500) and an unseen Han
// character for all 98,000 ideographs of the extensions; a block alone would mix letters with punctuation.

#include <cstdint>

namespace tw {

// The number of code points in cp's script within cp's block (at least 1; 1 for a value that is not a code point).
int script_alphabet_size(uint32_t cp);

}  // namespace tw
