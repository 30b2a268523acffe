#pragma once
// File names for figures exported from the GUI, and the no-overwrite rule. (Headless `export` keeps its documented
// `<panel>-<figure id>.<ext>` names and overwrites, as scripts expect.)
//
//   figure_file_stem("softmax", fig)  → "softmax-sweep-saturation-as-d_k-grows"   (fig.id "sweep", its title)
//   figure_file_stem("forward", step) → "forward-step-layers.1.attn.probs"        (fig.subject set by the panel)
//
// Before writing, the GUI asks existing_export_files(); when some exist the user chooses overwrite, keep both
// (free_export_stem: "<stem>-2", "-3", … the first suffix free for every format written) or cancel.

#include <string>
#include <vector>

#include "views/plot/export.h"
#include "views/plot/figure.h"

namespace tw::plot {

// Lower-case ASCII words of `text` joined by '-': letters, digits, '_' and '.' between two of them; Greek letters
// and math signs spelled out (θ → theta, × → x, √ → sqrt); anything in parentheses dropped; at most `max_len`
// bytes, cut at a word boundary. Empty when nothing is left.
std::string title_slug(const std::string& text, size_t max_len = 48);
// `<panel>-<figure id>[-<slug of subject or title>]` (the slug is left out when it only repeats the id).
std::string figure_file_stem(const std::string& panel_id, const Figure& fig);
// The paths `<dir>/<stem>.<ext>` of `formats` that already exist.
std::vector<std::string> existing_export_files(const std::string& dir, const std::string& stem, ExportFormats formats);
// `stem` when none of its files exist, else `<stem>-N` with the smallest N ≥ 2 free for every format in `formats`.
std::string free_export_stem(const std::string& dir, const std::string& stem, ExportFormats formats);
// Writes `<dir>/<stem>.<ext>` for each format (creating `dir`); appends the paths written. "" or the first error.
std::string export_figure_as(const Figure& fig, const std::string& dir, const std::string& stem, ExportFormats formats,
                             const ExportOptions& options, std::vector<std::string>* written);

}  // namespace tw::plot
