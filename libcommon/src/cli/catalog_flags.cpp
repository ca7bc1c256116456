#include <hetsched/cli/catalog_flags.hpp>

#include <hetsched/cli/app.hpp>
#include <hetsched/cli/inputs.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/model/memest.hpp>

namespace hetsched::cli {

CLI::Option* add_catalog_option(CLI::App& app, std::string& catalog) {
    return app.add_option("--catalog", catalog, "GPU catalog: default, juchi, sia, or a YAML/CSV file")
        ->type_name("CATALOG")
        ->capture_default_str();
}

void add_list_flags(CLI::App& app, ListFlags& flags, bool models) {
    if (models) app.add_flag("--list-models", flags.models, "List model presets as CSV and exit");
    app.add_flag("--list-gpus", flags.gpus, "List the catalog's GPU types as CSV and exit");
}

bool write_list(const CLI::App& app, const ListFlags& flags, const std::string& catalog, const std::string& output) {
    if (!flags.models && !flags.gpus) return false;
    if (flags.models && flags.gpus) throw UsageError("--list-models and --list-gpus: give one");
    if (flags.models) refuse_unread(app, {"--list-models"}, "--list-models");
    else refuse_unread(app, {"--list-gpus", "--catalog"}, "--list-gpus");
    io::write_output(output, flags.models ? model::list_models_csv() : model::list_gpus_csv(load_catalog(catalog)));
    return true;
}

}  // namespace hetsched::cli
