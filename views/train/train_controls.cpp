// The Training panel's controls (views/train/train_controls.h).
#include "views/train/train_controls.h"

#include <utility>

#include "core/base/i18n.h"
#include "views/train/train_language.h"

namespace tw {

void bind_train_controls(Controls& c, TrainPanelState& s) {
  c.add_enum(
      "task", &s.task.kind, TaskKind::Language, N_("task"),
      N_("copy: a random sequence then the same again (needs an induction head); sort / reverse: the prompt "
         "sorted or reversed; modadd: $(a + b) \\bmod p$; text: next character of your text; language: a language "
         "model of a corpus through a tokenizer."));
  c.add_int("length", &s.task.length, 1, 64, N_("prompt length $n$"),
            N_("Symbols in the prompt (copy, sort, reverse)."));
  c.add_int("alphabet", &s.task.alphabet, 2, 64, N_("alphabet"),
            N_("Distinct symbols the prompt draws from (A, B, C, ...)."));
  c.add_bool("vary_period", &s.task.vary_period, N_("vary the period"),
             N_("copy: the repeat starts after a random filler, so its offset changes every sample and only "
                "content-based attention (an induction head) can find it."));
  c.add_int("modulus", &s.task.modulus, 2, 211, N_("modulus $p$"),
            N_("modadd: answers $(a + b) \\bmod p$; vocabulary $p + 2$."));
  c.add_text("text", &s.task.text, 65536, N_("text"),
             N_("Text for the text task (its characters are the vocabulary)."));
  c.add_text("text_file", &s.text_file, 4096, N_("text file"),
             N_("Path of a text file to train on instead of the typed text (text task)."));
  c.add_int("context", &s.task.context, 2, 256, N_("context"), N_("Characters per training window (text task)."));
  bind_language_controls(c, s);
  c.add_int("val_examples", &s.task.val_examples, 16, 2048, N_("held-out examples"),
            N_("Size of the fixed held-out set the accuracy is measured on."), true);
  c.add_int("layers", &s.model.n_layers, 1, 8, N_("layers"), N_("Transformer blocks."));
  c.add_enum(
      "family", &s.model.family, Family::Gemma3, N_("family"),
      N_("llama: the block the choices below describe. gpt2: GPT-2's block (LayerNorm with bias, learned positions, "
         "tanh GELU, a bias on every projection, tied head). qwen3: Qwen3's (RMSNorm, RoPE, SwiGLU, $q$ and $k$ "
         "RMS-normalised per head before RoPE). gemma3: Gemma 3's (RMSNorm as $1 + \\gamma$, norms before and "
         "after attention and MLP, tanh GeGLU, embeddings times $\\sqrt{C}$, QK-norm before RoPE). A saved "
         "checkpoint carries the family's config.json and tensor names."));
  c.add_int("dim", &s.model.dim, 8, 512, N_("dim $C$"), N_("Width of the residual stream."), true);
  c.add_int("heads", &s.model.n_heads, 1, 16, N_("heads $H$"), N_("Query heads; head dim $D = C / H$."));
  c.add_int("kv_heads", &s.model.n_kv_heads, 1, 16, N_("KV heads"),
            N_("Key/value heads: $H$ is MHA, 1 is MQA, between is GQA (must divide $H$)."));
  c.add_int("hidden", &s.hidden, 0, 4096, N_("MLP hidden $F$"), N_("MLP hidden size; 0 = $4 \\times \\mathrm{dim}$."));
  c.add_int("vocab", &s.vocab, 0, 65536, N_("model vocabulary"),
            N_("Model vocabulary size; 0 = exactly the task's. Smaller than the task's is refused."));
  c.add_enum("positions", &s.model.positions, PositionType::ALiBi, N_("positions"),
             N_("How the model knows token order."));
  c.add_enum("norm", &s.model.norm, NormType::LayerNorm, N_("norm"), N_("RMSNorm (LLaMA) or LayerNorm (GPT-2)."));
  c.add_enum(
      "placement", &s.model.placement, NormPlacement::Post, N_("norm placement"),
      N_("pre: $x + f(\\mathrm{Norm}(x))$ (LLaMA); post: $\\mathrm{Norm}(x + f(x))$ (2017), unstable at high learning "
         "rates."));
  c.add_bool("parallel_block", &s.model.parallel_block, N_("parallel block"),
             N_("$x + \\mathrm{Attn}(\\mathrm{Norm}_1(x)) + \\mathrm{MLP}(\\mathrm{Norm}_2(x))$: both "
                "branches read the block input (GPT-NeoX; GPT-J and PaLM share one norm). Pre-norm only."));
  c.add_enum("activation", &s.model.activation, ActivationKind::GeGLU, N_("MLP activation"),
             N_("MLP non-linearity; SwiGLU/GeGLU add a gate matrix."));
  c.add_enum("attn_scale", &s.model.attn_scale, {"1/sqrt(d_k)", "none", "1/d_k"}, N_("attention scale"),
             N_("Factor on $q \\cdot k$: without $1/\\sqrt{d_k}$ the softmax saturates and learning slows."));
  c.add_bool("qk_norm", &s.model.qk_norm, N_("QK-norm"),
             N_("RMS-normalise $q$ and $k$ per head (learned $\\gamma$) before $q \\cdot k$."));
  c.add_float("softcap", &s.model.attn_softcap, 0.0f, 100.0f, N_("soft-cap"),
              N_("Scores become $c \\tanh(S/c)$; 0 = off."), false, "%.3g");
  c.add_bool("tie", &s.model.tie_embeddings, N_("tie embeddings"),
             N_("The LM head reuses the token embedding matrix."));
  c.add_int("experts", &s.model.experts, 0, kMaxExperts, N_("experts $E$"),
            N_("Mixture of experts: each block's MLP becomes $E$ expert MLPs (hidden $F$ each) behind a router; "
               "0 or 1 = one dense MLP."));
  c.add_int(
      "top_k", &s.model.top_k, 1, kMaxExperts, "top-k",
      N_("Experts each token is sent to; their outputs are mixed with the router probabilities renormalised "
         "over the $k$ (Mixtral). With $k = 1$ the gate is always 1, so only the balance loss trains the router."));
  c.add_float("capacity_factor", &s.capacity_factor, 0.0f, 8.0f, N_("capacity factor"),
              N_("Each expert takes at most $\\lceil \\mathrm{factor} \\cdot N k / E \\rceil$ of a batch's $N$ "
                 "tokens; the rest skip the MLP on the residual stream (Switch). 0 = no limit."),
              false, "%.3g");
  c.add_float("aux_coef", &s.aux_coef, 0.0f, 1.0f, N_("balance loss coef"),
              N_("$\\alpha$ of the load-balancing loss $\\alpha E \\sum_e f_e P_e$ added to the "
                 "training loss (Switch: 0.01); it is $k$ when the load is even."),
              false, "%.3g");
  c.add_enum("optimizer", &s.optimizer.kind, {N_("adamw"), N_("sgd")}, N_("optimizer"),
             N_("AdamW (as torch.optim.AdamW) or SGD with momentum 0.9."));
  c.add_float("lr", &s.optimizer.lr, 1e-5f, 10.0f, N_("learning rate"),
              N_("Peak learning rate; too high and training diverges."), true, "%.4g");
  c.add_int("batch", &s.batch, 1, 512, N_("batch"), N_("Sequences per step."), true);
  c.add_int("steps", &s.steps, 1, 100000, N_("steps"), N_("Length of the run: play stops here; the cosine ends here."),
            true);
  c.add_int("warmup", &s.optimizer.warmup_steps, 0, 10000, N_("warmup steps"),
            N_("Linear warmup from $\\mathrm{lr}/W$ to lr over $W$ steps."));
  c.add_float("weight_decay", &s.optimizer.weight_decay, 0.0f, 1.0f, N_("weight decay"),
              N_("Decoupled decay of the weight matrices (not norms or embeddings)."), false, "%.3g");
  c.add_bool("decay_all", &s.decay_all, N_("decay norms + embeddings"),
             N_("Also apply weight decay to norm gains/biases and embeddings (usually left out)."));
  c.add_float("clip", &s.optimizer.clip_norm, 0.0f, 100.0f, N_("clip grad norm"),
              N_("Scale gradients down to this global norm; 0 = off."), false, "%.3g");
  c.add_float(
      "z_loss", &s.z_loss, 0.0f, 1.0f, N_("z-loss coef"),
      N_("Adds $\\mathrm{coef} \\cdot \\log^2 Z$ to the loss, pulling the softmax normaliser toward 1 (PaLM: 1e-4); "
         "0 = off."),
      false, "%.3g");
  c.add_float("dropout", &s.dropout, 0.0f, 0.9f, N_("dropout"),
              N_("While training, each attention and MLP output is zeroed with probability $p$ and the rest scaled "
                 "by $1/(1-p)$ before the residual adds it (GPT-2: 0.1); evaluation and sampling never drop. Fights "
                 "overfitting when the text is small for the model; 0 = off."),
              false, "%.3g");
  c.add_seed(&s.seed, N_("Seeds the weights, batches, held-out set and probe and the dropout masks."));
  c.add_int("eval_every", &s.eval_every, 1, 1000, N_("evaluate every"), N_("Steps between held-out evaluations."),
            true);
  c.add_int("steps_per_frame", &s.steps_per_frame, 1, 1000, N_("steps per frame"),
            N_("Training steps between screen updates (changing it keeps the run)."), true);
}

bool train_control_shown(const TrainPanelState& s, const std::string& key) {
  const TaskKind kind = s.task.kind;
  const bool symbolic = kind == TaskKind::Copy || kind == TaskKind::Sort || kind == TaskKind::Reverse;
  if (key == "length" || key == "alphabet") return symbolic;
  if (key == "vary_period") return kind == TaskKind::Copy;
  if (key == "modulus") return kind == TaskKind::ModAdd;
  if (kind == TaskKind::Language && language_control_shown(s, key)) return true;
  if (kind == TaskKind::Language && key == "val_examples") return false;  // every held-out window is evaluated
  if (key == "corpus" || key == "tokenizer" || key == "lm_vocab" || key == "sample_every") return false;
  if (key == "text" || key == "text_file" || key == "context") return kind == TaskKind::Text;
  if (key == "top_k" || key == "capacity_factor" || key == "aux_coef") return s.model.moe();
  // A family fixes these (core/model/config.h apply_family): their controls would not change the model.
  const Family family = s.model.family;
  if (family != Family::Llama && (key == "positions" || key == "norm" || key == "placement" ||
                                  key == "parallel_block" || key == "activation" || key == "qk_norm"))
    return false;
  if (family == Family::GPT2 && key == "kv_heads") return false;
  if ((family == Family::GPT2 || family == Family::Gemma3) && key == "tie") return false;
  return true;
}

const char* train_group_starting_at(const std::string& key) {
  static const std::pair<const char*, const char*> kGroups[] = {{"task", N_("Task")},
                                                                {"layers", N_("Model")},
                                                                {"experts", N_("Mixture of experts")},
                                                                {"optimizer", N_("Optimization")},
                                                                {"steps_per_frame", N_("Speed")}};
  for (const auto& [first, heading] : kGroups)
    if (key == first) return heading;
  return nullptr;
}

}  // namespace tw
