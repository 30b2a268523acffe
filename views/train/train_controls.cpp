// The Training panel's controls (views/train/train_controls.h).
#include "views/train/train_controls.h"

#include <utility>

namespace tw {

void bind_train_controls(Controls& c, TrainPanelState& s) {
  c.add_enum("task", &s.task.kind, TaskKind::Text, "task",
             "copy: a random sequence then the same again (needs an induction head); sort / reverse: the prompt "
             "sorted or reversed; modadd: a + b mod p; text: next character of your text.");
  c.add_int("length", &s.task.length, 1, 64, "prompt length n", "Symbols in the prompt (copy, sort, reverse).");
  c.add_int("alphabet", &s.task.alphabet, 2, 64, "alphabet", "Distinct symbols the prompt draws from (A, B, C, ...).");
  c.add_bool("vary_period", &s.task.vary_period, "vary the period",
             "copy: the repeat starts after a random filler, so its offset changes every sample and only "
             "content-based attention (an induction head) can find it.");
  c.add_int("modulus", &s.task.modulus, 2, 211, "modulus p", "modadd: answers (a + b) mod p; vocabulary p + 2.");
  c.add_text("text", &s.task.text, 65536, "text", "Text for the text task (its characters are the vocabulary).");
  c.add_text("text_file", &s.text_file, 4096, "text file",
             "Path of a text file to train on instead of the typed text (text task).");
  c.add_int("context", &s.task.context, 2, 256, "context", "Characters per training window (text task).");
  c.add_int("val_examples", &s.task.val_examples, 16, 2048, "held-out examples",
            "Size of the fixed held-out set the accuracy is measured on.", true);
  c.add_int("layers", &s.model.n_layers, 1, 8, "layers", "Transformer blocks.");
  c.add_int("dim", &s.model.dim, 8, 512, "dim C", "Width of the residual stream.", true);
  c.add_int("heads", &s.model.n_heads, 1, 16, "heads H", "Query heads; head dim D = C / H.");
  c.add_int("kv_heads", &s.model.n_kv_heads, 1, 16, "KV heads",
            "Key/value heads: = H is MHA, 1 is MQA, between is GQA (must divide H).");
  c.add_int("hidden", &s.hidden, 0, 4096, "MLP hidden F", "MLP hidden size; 0 = 4 \xC3\x97 dim.");
  c.add_int("vocab", &s.vocab, 0, 65536, "model vocabulary",
            "Model vocabulary size; 0 = exactly the task's. Smaller than the task's is refused.");
  c.add_enum("positions", &s.model.positions, PositionType::ALiBi, "positions", "How the model knows token order.");
  c.add_enum("norm", &s.model.norm, NormType::LayerNorm, "norm", "RMSNorm (LLaMA) or LayerNorm (GPT-2).");
  c.add_enum("placement", &s.model.placement, NormPlacement::Post, "norm placement",
             "pre: x + f(Norm(x)) (LLaMA); post: Norm(x + f(x)) (2017), unstable at high learning rates.");
  c.add_enum("activation", &s.model.activation, ActivationKind::GeGLU, "MLP activation",
             "MLP non-linearity; SwiGLU/GeGLU add a gate matrix.");
  c.add_enum("attn_scale", &s.model.attn_scale, {"1/sqrt(d_k)", "none", "1/d_k"}, "attention scale",
             "Factor on q\xC2\xB7k: without 1/\xE2\x88\x9A"
             "d_k the softmax saturates and learning slows.");
  c.add_bool("qk_norm", &s.model.qk_norm, "QK-norm",
             "RMS-normalise q and k per head (learned \xCE\xB3) before q\xC2\xB7k.");
  c.add_float("softcap", &s.model.attn_softcap, 0.0f, 100.0f, "soft-cap", "Scores become c\xC2\xB7tanh(S/c); 0 = off.",
              false, "%.3g");
  c.add_bool("tie", &s.model.tie_embeddings, "tie embeddings", "The LM head reuses the token embedding matrix.");
  c.add_int("experts", &s.model.experts, 0, kMaxExperts, "experts E",
            "Mixture of experts: each block's MLP becomes E expert MLPs (hidden F each) behind a router; "
            "0 or 1 = one dense MLP.");
  c.add_int("top_k", &s.model.top_k, 1, kMaxExperts, "top-k",
            "Experts each token is sent to; their outputs are mixed with the router probabilities renormalised "
            "over the k (Mixtral). With k = 1 the gate is always 1, so only the balance loss trains the router.");
  c.add_float("capacity_factor", &s.capacity_factor, 0.0f, 8.0f, "capacity factor",
              "Each expert takes at most \xE2\x8C\x88"
              "factor\xC2\xB7N\xC2\xB7k / E\xE2\x8C\x89 of a batch's N "
              "tokens; the rest skip the MLP on the residual stream (Switch). 0 = no limit.",
              false, "%.3g");
  c.add_float("aux_coef", &s.aux_coef, 0.0f, 1.0f, "balance loss coef",
              "\xCE\xB1 of the load-balancing loss \xCE\xB1\xC2\xB7"
              "E\xC2\xB7\xCE\xA3 f_e\xC2\xB7P_e added to the "
              "training loss (Switch: 0.01); it is k when the load is even.",
              false, "%.3g");
  c.add_enum("optimizer", &s.optimizer.kind, {"adamw", "sgd"}, "optimizer",
             "AdamW (as torch.optim.AdamW) or SGD with momentum 0.9.");
  c.add_float("lr", &s.optimizer.lr, 1e-5f, 10.0f, "learning rate",
              "Peak learning rate; too high and training diverges.", true, "%.4g");
  c.add_int("batch", &s.batch, 1, 512, "batch", "Sequences per step.", true);
  c.add_int("steps", &s.steps, 1, 100000, "steps", "Length of the run: play stops here; the cosine ends here.", true);
  c.add_int("warmup", &s.optimizer.warmup_steps, 0, 10000, "warmup steps",
            "Linear warmup from lr/W to lr over W steps.");
  c.add_float("weight_decay", &s.optimizer.weight_decay, 0.0f, 1.0f, "weight decay",
              "Decoupled decay of the weight matrices (not norms or embeddings).", false, "%.3g");
  c.add_bool("decay_all", &s.decay_all, "decay norms + embeddings",
             "Also apply weight decay to norm gains/biases and embeddings (usually left out).");
  c.add_float("clip", &s.optimizer.clip_norm, 0.0f, 100.0f, "clip grad norm",
              "Scale gradients down to this global norm; 0 = off.", false, "%.3g");
  c.add_float("z_loss", &s.z_loss, 0.0f, 1.0f, "z-loss coef",
              "Adds coef\xC2\xB7log\xC2\xB2 Z to the loss, pulling the softmax normaliser toward 1 (PaLM: 1e-4); "
              "0 = off.",
              false, "%.3g");
  c.add_seed(&s.seed, "Seeds the weights, batches, held-out set and probe.");
  c.add_int("eval_every", &s.eval_every, 1, 1000, "evaluate every", "Steps between held-out evaluations.", true);
  c.add_int("steps_per_frame", &s.steps_per_frame, 1, 1000, "steps per frame",
            "Training steps between screen updates (changing it keeps the run).", true);
}

bool train_control_shown(const TrainPanelState& s, const std::string& key) {
  const TaskKind kind = s.task.kind;
  const bool symbolic = kind == TaskKind::Copy || kind == TaskKind::Sort || kind == TaskKind::Reverse;
  if (key == "length" || key == "alphabet") return symbolic;
  if (key == "vary_period") return kind == TaskKind::Copy;
  if (key == "modulus") return kind == TaskKind::ModAdd;
  if (key == "text" || key == "text_file" || key == "context") return kind == TaskKind::Text;
  if (key == "top_k" || key == "capacity_factor" || key == "aux_coef") return s.model.moe();
  return true;
}

const char* train_group_starting_at(const std::string& key) {
  static const std::pair<const char*, const char*> kGroups[] = {{"task", "Task"},
                                                                {"layers", "Model"},
                                                                {"experts", "Mixture of experts"},
                                                                {"optimizer", "Optimization"},
                                                                {"steps_per_frame", "Speed"}};
  for (const auto& [first, heading] : kGroups)
    if (key == first) return heading;
  return nullptr;
}

}  // namespace tw
