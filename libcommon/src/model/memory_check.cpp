#include <hetsched/model/memory_check.hpp>

#include <algorithm>
#include <map>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <optional>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/model/model_style.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::model {
namespace {

int degree(const io::CsvTable& t, size_t r, int col) { return static_cast<int>(t.integer(r, col, 1, limits::degree)); }

/// The most memory one GPU of the default catalog has, GiB.
double largest_gpu_gib() {
    static const double largest = [] {
        double most = 0;
        for (const auto& g : catalog::named_catalog("default").gpus) most = std::max(most, g.memory_gib);
        return most;
    }();
    return largest;
}

/// Column `name`'s index under the other name the job document and the frameworks' arguments give it,
/// where the table has that one and not `name`; -1 otherwise.
/// Columns that also go by another name (the job document's, the frameworks' arguments').
constexpr std::pair<const char*, const char*> kAliases[] = {
    {"flash_attn", "flash_attention"}, {"seq_parallel", "sequence_parallel"}, {"kv_heads", "num_kv_heads"}};

int by_alias(const io::CsvTable& t, const std::string& name) {
    for (const auto& [column, other] : kAliases)
        if (column == name && t.find(column) < 0) return t.find(other);
    return -1;
}

/// The stage a run measured: all, max, first, last, middle or a 0-based index below pp (returned;
/// -1 for the names).
long check_stage(const std::string& stage, int pp) {
    if (stage == "all" || stage == "max" || stage == "first" || stage == "last") return -1;
    if (stage == "middle") {
        if (pp < 3) throw DataError("'middle' needs at least 3 pipeline stages, the run has " + std::to_string(pp));
        return -1;
    }
    const bool digits = !stage.empty() && stage.find_first_not_of("0123456789") == std::string::npos;
    const auto index = digits ? io::parse_whole(stage, 0, pp - 1) : std::nullopt;
    if (!index)
        throw DataError("expected all, max, first, last, middle or a stage index from 0 to " + std::to_string(pp - 1) +
                        " in column 'stage_measured', got '" + io::shown_value(stage) + "'");
    return *index;
}

/// A run's framework when no column names it: the one its source names (torchtitan runs FSDP2;
/// DeepSpeed, or Megatron-DeepSpeed, the DeepSpeed engine), else ZeRO-3 is FSDP's full sharding and
/// ZeRO-1/2 without Megatron's distributed optimizer is DeepSpeed.
Framework infer_framework(const Training& t, const std::string& source) {
    const std::string lower = io::folded_name(source);
    if (lower.find("torchtitan") != std::string::npos || lower.find("fsdp") != std::string::npos) return Framework::fsdp;
    if (lower.find("deepspeed") != std::string::npos) return Framework::deepspeed;
    if (t.zero_stage == 3) return Framework::fsdp;
    if (t.zero_stage >= 1 && !t.distributed_optimizer) return Framework::deepspeed;
    return Framework::megatron;
}

/// The release a run's source names right after `name` (lower case: "deepspeed" or "torchtitan"):
/// "DeepSpeed 0.16.4", "deepspeed==0.14.0", "torchtitan v0.2.2", the log line "DeepSpeed info:
/// version=0.4.0+407ff0f"; or empty. Every DeepSpeed and torchtitan release is 0.x; a number running
/// on into letters ("DeepSpeed 1.3B", the commit "torchtitan 9dec370") is no release, and
/// "Megatron-DeepSpeed" names model code.
std::string release_in(const std::string& source, const std::string& name) {
    const std::string lower = io::folded_name(source);
    const std::string fork = "megatron";
    auto starts = [&](size_t i, const std::string& word) { return lower.compare(i, word.size(), word) == 0; };
    for (size_t at = lower.find(name); at != std::string::npos; at = lower.find(name, at + 1)) {
        if (at > fork.size() && starts(at - fork.size() - 1, fork) && std::string("-_ ").find(lower[at - 1]) != std::string::npos)
            continue;
        size_t i = at + name.size();
        const size_t after_name = i;
        while (i < lower.size()) {
            if (starts(i, "version")) i += 7;
            else if (starts(i, "info")) i += 4;
            else if (std::string(" =v@:_-").find(lower[i]) != std::string::npos) ++i;
            else break;
        }
        size_t end = i;
        while (end < lower.size() && (std::isdigit(static_cast<unsigned char>(lower[end])) || lower[end] == '.')) ++end;
        while (end > i && lower[end - 1] == '.') --end;  // a sentence's full stop
        const bool bounded = end == lower.size() || !std::isalnum(static_cast<unsigned char>(lower[end]));
        const std::string release = lower.substr(i, end - i);
        if (i > after_name && bounded && starts(i, "0.") && is_release(release)) return release;
    }
    return "";
}

/// The lower-case runs of letters and digits in `text`, in order (the last may be empty).
std::vector<std::string> words_of(const std::string& text) {
    std::vector<std::string> words{""};
    for (char c : io::folded_name(text)) {
        if (std::isalnum(static_cast<unsigned char>(c))) words.back() += c;
        else if (!words.back().empty()) words.emplace_back();
    }
    return words;
}

/// Whether a Megatron-LM run used its local implementation: the run's id has the word "local" or
/// "localimpl" ("mlm-ci-tiny-tp4pp1-local"), or its source names --transformer-impl local or a CI case
/// that uninstalls Transformer Engine.
bool names_local_impl(const std::string& id, const std::string& source) {
    for (const std::string& w : words_of(id))
        if (w == "local" || w == "localimpl") return true;
    const std::string lower = io::folded_name(source);
    for (const char* name : {"transformer-impl local", "transformer_impl local", "transformer-impl: local",
                             "transformer_impl: local", "uninstall_te", "uninstall-te"})
        if (lower.find(name) != std::string::npos) return true;
    return false;
}

/// Whether a run's id or source says torch.compile ran: the word "compile" or "compiled" on its own
/// ("tt-8b-compile", "FSDP + torch.compile"), not inside another ("nocompile", "precompiled") nor
/// negated by the words before it ("no", "not", "without", "w/o") or after it ("0", "false", "off",
/// "disabled", "none", "no").
bool names_compile(const std::string& text) {
    const std::vector<std::string> words = words_of(text);
    auto is = [&](size_t i, std::initializer_list<const char*> any) {
        return i < words.size() && std::any_of(any.begin(), any.end(), [&](const char* w) { return words[i] == w; });
    };
    for (size_t i = 0; i < words.size(); ++i) {
        if (!is(i, {"compile", "compiled"})) continue;
        const bool negated = (i >= 1 && is(i - 1, {"no", "not", "without"})) ||
                             (i >= 2 && words[i - 1] == "torch" && is(i - 2, {"no", "not", "without"})) ||
                             (i >= 2 && words[i - 2] == "w" && words[i - 1] == "o") ||
                             is(i + 1, {"0", "false", "off", "disabled", "none", "no"});
        if (!negated) return true;
    }
    return false;
}

/// "8 9 9 6", "8;9;9;6", or (a quoted cell) "8,9,9,6" as --layers-per-stage takes it, in brackets or not.
std::vector<long> read_split(const std::string& text) {
    std::vector<long> out;
    std::string item;
    const size_t a = text.find_first_not_of(" \t"), b = text.find_last_not_of(" \t");  // a quoted " [4,4] "
    std::string inner = a == std::string::npos ? "" : text.substr(a, b - a + 1);
    if (inner.size() >= 2 && inner.front() == '[' && inner.back() == ']') inner = inner.substr(1, inner.size() - 2);
    for (size_t i = 0; i <= inner.size(); ++i) {
        if (i < inner.size() && std::string(" ;,").find(inner[i]) == std::string::npos) {
            item += inner[i];
            continue;
        }
        if (item.empty()) continue;
        const auto v = io::parse_whole(item, 1, limits::layers);
        if (!v) throw DataError("expected layer counts from 1 separated by spaces, ';' or ',' in column 'layers_per_stage', got '" +
                                io::shown_value(text) + "'");
        out.push_back(*v);
        item.clear();
    }
    if (out.empty()) throw DataError("expected layer counts separated by spaces, ';' or ',' in column 'layers_per_stage', got '" +
                                     io::shown_value(text) + "'");
    return out;
}

}  // namespace

MeasuredRuns read_measured_runs(const io::CsvTable& t) {
    // Every column looked up, and the optional ones the file lacks: a column it has that memest does not
    // read is ignored, but one close to a missing one is likely meant for it.
    std::vector<std::string> known, absent;
    // Three columns also go by the names the job document and the frameworks' arguments give them.
    const auto alias = [&](const char* name) {
        const int other = by_alias(t, name);
        if (other >= 0) known.push_back(t.header()[static_cast<size_t>(other)].text);
        return other;
    };
    const auto req = [&](const char* name) {
        known.push_back(name);
        const int other = alias(name);
        return other >= 0 ? other : t.require(name);
    };
    const auto opt = [&](const char* name) {
        known.push_back(name);
        const int other = alias(name);
        const int at = other >= 0 ? other : t.find(name);
        if (at < 0) absent.push_back(name);
        return at;
    };
    const int id = req("id"), layers = req("layers"), hidden = req("hidden"),
              heads = req("heads"), kv = req("kv_heads"), ffn = req("ffn_hidden"),
              gated = req("gated_mlp"), vocab = req("vocab"), tied = req("tied_embeddings"),
              seq = req("seq_len"), mb = req("micro_batch"), gb = req("global_batch"),
              tp = req("tp"), pp = req("pp"), dp = req("dp"), zero = req("zero_stage"),
              recompute = req("recompute"), flash = req("flash_attn"), precision = req("precision"),
              measured = req("measured_gib"), kind = req("measure_kind");
    // Features a run without them leaves out of its table: off where absent or empty (no interleaving,
    // no context parallelism, no distributed optimizer, no sequence parallelism); which stage was
    // measured matters to a pipeline run alone.
    const int vpp = opt("vpp"), cp = opt("cp"), distopt = opt("distributed_optimizer"), sp = opt("seq_parallel"),
              stage = opt("stage_measured");
    const int framework = opt("framework"), dropout = opt("dropout"), rms = opt("rms_norm"),
              bias = opt("linear_bias"), split = opt("layers_per_stage"), compiled = opt("compile"),
              fp8_gather = opt("fp8_all_gather"), fp32_reduce = opt("fp32_allreduce"),
              bucket = opt("reduce_bucket_size"), overlap = opt("overlap_comm"), sub_group = opt("sub_group_size"),
              max_live = opt("stage3_max_live_parameters"),
              version = opt("framework_version"),
              every = opt("checkpoint_every"), first = opt("first_iteration"),
              softmax = opt("unfused_fp32_softmax"), backend = opt("attention_backend"),
              ds_model = opt("deepspeed_model"), impl = opt("transformer_impl"),
              source = opt("source"), gpu = opt("gpu"), capability = opt("compute_capability"),
              cublas = opt("cublas_workspace_config"), head_dim = opt("head_dim"), qk_norm = opt("qk_norm"),
              micro_batches = opt("num_microbatches"), positions = opt("learned_positions");
    MeasuredRuns out;
    std::vector<std::string> unknown_gpus;  // warned about
    for (const auto& h : t.header()) {
        if (std::find(known.begin(), known.end(), h.text) != known.end()) continue;
        const std::string near = io::did_you_mean(h.text, absent);
        if (!near.empty())
            out.warnings.push_back(describe(DataError(
                "column '" + h.text + "' is not one memest reads (ignored)" + near, {t.name(), h.line, h.col})));
    }
    // A column and its other name both there: which one a row means is not known.
    for (const auto& [name, other] : kAliases)
        if (t.find(name) >= 0 && t.find(other) >= 0) {
            const auto& h = t.header()[static_cast<size_t>(t.find(other))];
            throw DataError("columns '" + std::string(name) + "' and '" + other + "' are one setting under two names: keep one",
                            {t.name(), h.line, h.col});
        }
    std::map<std::string, int> first_line;  // each id's row, to name a repeated one
    for (size_t r = 0; r < t.rows(); ++r) {
        MeasuredRun run;
        run.id = t.cell(r, id).text;
        // Whether the row has an optional column's cell filled in.
        auto given = [&](int column) { return column >= 0 && !t.cell(r, column).text.empty(); };
        try {
        // The id names the row in the output and in every message: one each, and not blank.
        if (run.id.empty()) throw DataError("expected the run's id in column 'id', got ''", t.where(r, id));
        if (const auto [it, fresh] = first_line.emplace(run.id, t.cell(r, id).line); !fresh)
            throw DataError("id '" + run.id + "' is also the id of line " + std::to_string(it->second) +
                                "'s run: each run needs its own",
                            t.where(r, id));
        auto& m = run.model;
        m.name = run.id;
        m.layers = t.integer(r, layers, 1, limits::layers);
        m.hidden = t.integer(r, hidden, 1, limits::hidden);
        m.heads = t.integer(r, heads, 1, limits::heads);
        m.kv_heads = t.integer(r, kv, 1, limits::heads);
        if (given(head_dim)) m.head_dim = t.integer(r, head_dim, 1, limits::head_dim);
        m.ffn_hidden = t.integer(r, ffn, 1, limits::ffn_hidden);
        m.gated_mlp = t.boolean(r, gated);
        m.vocab = t.integer(r, vocab, 1, limits::vocab);
        m.tied_embeddings = t.boolean(r, tied);
        const NormAndBias style = style_norm_and_bias(m.gated_mlp);
        m.rms_norm = rms >= 0 ? t.boolean(r, rms) : style.rms_norm;
        m.linear_bias = bias >= 0 ? t.boolean(r, bias) : style.linear_bias;
        if (given(qk_norm)) m.qk_norm = t.boolean(r, qk_norm);

        auto& tr = run.training;
        tr.seq_len = t.integer(r, seq, 1, limits::seq_len);
        m.learned_positions = m.gated_mlp ? 0 : tr.seq_len;  // GPT-style: a table as long as the run's sequences
        if (given(positions)) {
            m.learned_positions = t.integer(r, positions, 0, limits::seq_len);
            if (m.learned_positions > 0 && m.learned_positions < tr.seq_len)
                throw DataError("learned_positions " + std::to_string(m.learned_positions) + " is shorter than seq_len " +
                                    std::to_string(tr.seq_len) + ": the table has a row for every position (0: none)",
                                t.where(r, positions));
        }
        tr.global_batch = t.integer(r, gb, 1, limits::global_batch);
        tr.zero_stage = static_cast<int>(t.integer(r, zero, 0, 3));
        if (given(distopt)) tr.distributed_optimizer = t.boolean(r, distopt);
        if (given(sp)) tr.seq_parallel = t.boolean(r, sp);
        tr.flash_attention = t.boolean(r, flash);
        if (given(fp8_gather)) tr.fp8_all_gather = t.boolean(r, fp8_gather);
        if (given(fp32_reduce)) tr.fp32_allreduce = t.boolean(r, fp32_reduce);
        if (given(overlap)) tr.overlap_comm = t.boolean(r, overlap);
        if (given(bucket))
            tr.reduce_bucket_size = t.number(r, bucket, 1, limits::bucket_elements);
        if (given(sub_group))
            tr.sub_group_size = t.number(r, sub_group, 1, limits::bucket_elements);
        if (given(max_live))
            tr.max_live_parameters = t.number(r, max_live, 1, limits::bucket_elements);
        if (given(first)) tr.first_iteration = t.boolean(r, first);
        if (given(softmax)) tr.unfused_fp32_softmax = t.boolean(r, softmax);
        // Runs `read`, reporting a word it refuses at the row's cell in `column`.
        auto at = [&](int column, const auto& read) {
            try {
                read();
            } catch (const DataError& e) {
                throw DataError(e.what(), t.where(r, column));
            }
        };
        // A cell naming one of a fixed set of words, in any case ("BF16", "Full", "Megatron").
        auto word = [&](int column) { return io::folded_name(t.cell(r, column).text); };
        // A setting's cell, if there and not empty, read by one of training.hpp's parse_*; whether it was.
        auto setting = [&](int column, void (*parse)(const std::string&, Training&)) {
            if (!given(column)) return false;
            at(column, [&] { parse(word(column), tr); });
            return true;
        };
        const bool impl_given = setting(impl, parse_transformer_impl);
        setting(backend, parse_attention_backend);
        if (version >= 0) {
            tr.framework_version = t.cell(r, version).text;
            if (!tr.framework_version.empty() && !is_release(tr.framework_version))
                throw DataError("expected a release such as 0.17.5 in column 'framework_version', got '" +
                                    tr.framework_version + "'",
                                t.where(r, version));
        }
        // The GPU's compute capability: the column (CUDA's major.minor), else the default catalog's
        // for the gpu cell's family; unknown (0) when neither says.
        if (given(capability)) {
            tr.compute_capability = t.number(r, capability, 0, 20);  // 0: unknown
            if (!catalog::valid_compute_capability(tr.compute_capability))
                throw DataError(catalog::expected_compute_capability(t.cell(r, capability).text),
                                t.where(r, capability));
        } else if (given(gpu)) {
            const std::string& name = t.cell(r, gpu).text;
            // Once a name: a GPU the catalog lacks is no error, but a misspelt one would pass unseen.
            if (!catalog::default_family_known(name) &&
                std::find(unknown_gpus.begin(), unknown_gpus.end(), name) == unknown_gpus.end()) {
                unknown_gpus.push_back(name);
                out.warnings.push_back(describe(DataError(
                    "gpu '" + name + "' is of no family in the default catalog that tells its compute capability (memest --list-gpus): its compute "
                    "capability is taken as unknown, with Hopper's settings; a compute_capability column gives it",
                    t.where(r, gpu))));
            }
            tr.compute_capability = catalog::default_family_compute_capability(name);
        }
        if (cublas >= 0)  // "Default" as "default": the word for torch's own
            tr.cublas_workspace_config = word(cublas) == "default" ? "default" : t.cell(r, cublas).text;
        if (given(every))
            tr.checkpoint_every = static_cast<int>(t.integer(r, every, 1, limits::layers));
        const bool compile_given = setting(compiled, parse_compile);
        tr.precision = precision_word(word(precision));
        // fp32 training with TF32 matrix multiplies: the same memory as fp32.
        if (tr.precision == "tf32") tr.precision = "fp32", tr.tf32 = true;
        at(precision, [&] {  // the precision's own check, at its cell, and whether the GPU runs it
            Training alone;
            alone.seq_len = alone.global_batch = 1;
            alone.precision = tr.precision;
            validate_training(alone);
            if (std::string why = precision_unsupported(tr); !why.empty())
                throw DataError(why + capability_note(tr));
        });
        at(recompute, [&] {
            if (word(recompute).empty()) throw DataError("expected none, selective or full in column 'recompute', got ''");
            tr.recompute = parse_recompute(word(recompute));
        });
        const std::string source_text = source >= 0 ? t.cell(r, source).text : "";
        if (given(framework))
            at(framework, [&] { tr.framework = parse_framework(word(framework)); });
        else
            tr.framework = tr.local_impl ? Framework::megatron  // only Megatron-LM has a local implementation
                                         : infer_framework(tr, source_text);
        if (tr.framework_version.empty() && tr.framework != Framework::megatron)
            tr.framework_version = release_in(source_text, tr.framework == Framework::deepspeed ? "deepspeed" : "torchtitan");
        // Megatron-LM's local implementation (unfused attention only), when the id or source says so.
        if (!impl_given && tr.framework == Framework::megatron && !tr.flash_attention &&
            names_local_impl(run.id, source_text))
            tr.local_impl = true;
        // Whose model DeepSpeed ran: the column, else Megatron-DeepSpeed's when the source or the
        // framework cell names it.
        if (!setting(ds_model, parse_deepspeed_model) && tr.framework == Framework::deepspeed &&
            (names_megatron_deepspeed(source_text) || (given(framework) && names_megatron_deepspeed(t.cell(r, framework).text))))
            tr.deepspeed_model = "megatron";
        // torchtitan's benchmarks before April 2025 compiled the blocks alone; a compiled loss
        // would lower the prediction, so a run that does not say which counts its blocks only.
        if (!compile_given && tr.framework == Framework::fsdp && names_compile(run.id + " " + source_text))
            parse_compile("model", tr);
        at(kind, [&] { run.measure = parse_measure(word(kind)); });
        m.dropout = given(dropout) ? t.number(r, dropout, 0, 0.99) : default_dropout(m, tr);
        auto& l = run.layout;
        l.tp = degree(t, r, tp);
        l.pp = degree(t, r, pp);
        // Megatron-LM leaves its virtual pipeline size unset (None) without interleaving: 1 here.
        const std::string vpp_word = vpp >= 0 ? word(vpp) : "";
        l.vpp = vpp_word.empty() || vpp_word == "none" || vpp_word == "0" ? 1 : degree(t, r, vpp);
        l.dp = degree(t, r, dp);
        if (given(cp)) l.cp = degree(t, r, cp);
        l.micro_batch = t.integer(r, mb, 1, limits::global_batch);
        run.stage = given(stage) ? word(stage) : "all";
        if (!given(stage) && l.pp > 1)
            throw DataError("a pipeline run (pp " + std::to_string(l.pp) + ") needs stage_measured: all or max (the peak "
                            "stage), first, last, middle or a stage index",
                            stage >= 0 ? t.where(r, stage) : t.where(r, pp));
        try {
            run.stage_index = check_stage(run.stage, l.pp);
        } catch (const DataError& e) {
            throw DataError(e.what(), t.where(r, stage));
        }
        if (given(split)) {
            try {
                l.layers_per_stage = read_split(t.cell(r, split).text);
            } catch (const DataError& e) {
                throw DataError(e.what(), t.where(r, split));
            }
        }
        run.measured_gib = t.number(r, measured, 0.001, limits::max_memory_gib);
        // A figure past twice the largest GPU the catalog knows is no GiB of one GPU: MiB, or bytes.
        if (run.measured_gib > 2 * largest_gpu_gib())
            throw DataError("measured_gib " + io::shown_value(t.cell(r, measured).text) +
                                " is more than twice the memory of any GPU in the default catalog (" +
                                io::format_number(largest_gpu_gib()) + " GiB): expected GiB (MiB / 1024)",
                            t.where(r, measured));
        try {
            validate(run.model, run.training, run.layout);
        } catch (const DataError& e) {
            // A combination of cells: at the column the message begins with ("tp (3) must divide
            // heads"), else at the row's id.
            const std::string why = e.what(), name = why.substr(0, why.find_first_of(" (:"));
            const int named = t.find(name) >= 0 ? t.find(name) : by_alias(t, name);
            throw DataError(why, t.where(r, named >= 0 ? named : id));
        }
        // The number of micro-batches follows from the batch sizes; a cell that says otherwise
        // describes another run than the one estimated.
        if (given(micro_batches)) {
            const long stated = t.integer(r, micro_batches, 1, limits::global_batch);
            const long derived = l.micro_batches(run.training.global_batch);
            if (stated != derived)
                throw DataError("num_microbatches " + std::to_string(stated) + " disagrees with global_batch / (micro_batch x dp) = " +
                                    std::to_string(derived),
                                t.where(r, micro_batches));
        }
        out.runs.push_back(run);
        } catch (const DataError& e) {  // this row only: the others are still checked
            out.skipped.push_back({run.id, describe(e)});
        }
    }
    return out;
}

std::vector<CheckRow> check_runs(const std::vector<MeasuredRun>& runs, Method method) {
    std::vector<CheckRow> rows;
    for (const auto& run : runs) {
        const auto est = estimate_memory(run.model, run.training, run.layout, run.measure, method);
        double bytes = est.peak_bytes();
        if (run.stage == "first") bytes = est.stages.front().total();
        else if (run.stage == "last") bytes = est.stages.back().total();
        else if (run.stage == "middle") bytes = est.stages[(est.stages.size() - 1) / 2].total();
        else if (run.stage_index >= 0)  // below pp; frenzy's one stage stands for every stage
            bytes = est.stages[method == Method::frenzy ? 0 : static_cast<size_t>(run.stage_index)].total();
        const double predicted = bytes / kGiB;
        rows.push_back({run.id, run.training.framework, run.measure, run.measured_gib, predicted,
                        100 * (predicted - run.measured_gib) / run.measured_gib});
    }
    return rows;
}

CheckSummary summarize(const std::vector<CheckRow>& rows) {
    CheckSummary s;
    s.cases = rows.size();
    for (const auto& r : rows) {
        const double e = std::fabs(r.error_pct);
        s.mean_abs_pct += e;
        s.max_abs_pct = std::max(s.max_abs_pct, e);
        if (e <= 5) ++s.within_5pct;
    }
    if (s.cases) s.mean_abs_pct /= static_cast<double>(s.cases);
    return s;
}

namespace {

/// "; by LABEL: name n (mean m%, max x%), ..." over the groups `group_of` puts the rows in, in the
/// order of `groups`; nothing when the rows fall in one group.
template <typename Key, typename Name>
std::string breakdown(const std::vector<CheckRow>& rows, const std::string& label, std::initializer_list<Key> groups,
                      Key (*group_of)(const CheckRow&), Name name) {
    std::string out;
    for (Key g : groups) {
        std::vector<CheckRow> mine;
        for (const auto& r : rows)
            if (group_of(r) == g) mine.push_back(r);
        if (mine.empty() || mine.size() == rows.size()) continue;
        const auto m = summarize(mine);
        out += (out.empty() ? "; by " + label + ": " : ", ") + name(g) + " " + std::to_string(m.cases) + " (mean " +
               io::format_fixed(m.mean_abs_pct, 2) + "%, max " + io::format_fixed(m.max_abs_pct, 2) + "%)";
    }
    return out;
}

}  // namespace

std::string summary_line(const std::vector<CheckRow>& rows) {
    const auto s = summarize(rows);
    return io::counted(s.cases, "case") + ", mean |error| " + io::format_fixed(s.mean_abs_pct, 2) + "%, max |error| " +
           io::format_fixed(s.max_abs_pct, 2) + "%, " + std::to_string(s.within_5pct) + " within 5%" +
           breakdown(rows, "framework", {Framework::megatron, Framework::deepspeed, Framework::fsdp},
                     +[](const CheckRow& r) { return r.framework; }, framework_name) +
           breakdown(rows, "measure", {Measure::allocated, Measure::reserved, Measure::device},
                     +[](const CheckRow& r) { return r.measure; }, measure_name);
}

}  // namespace hetsched::model
