#include "world_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend/cuda_backend.hpp"
#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "job_result.hpp"
#include "layers/finite_check.hpp"
#include "mpi_launch.hpp"
#include "progress_keeper.hpp"
#include "safe_output.hpp"
#include "trace_file.hpp"

namespace tplab::app {
namespace {

/// The device and world communicator of --backend and --comm.
struct Backend {
  std::unique_ptr<Device> device;
  std::unique_ptr<Comm> world;
  MPI_Comm mpi = MPI_COMM_NULL;
  std::shared_ptr<TraceRecorder> trace;  ///< with --trace
};

Backend make_backend(const WorldSetup& setup) {
  validate_backend_choice(setup.backend, setup.comm);
  Backend b;
  if (setup.trace) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    b.trace = std::make_shared<TraceRecorder>(rank + 1, trace_capacity());  // pid: rank + 1
  }
  if (setup.backend == "cpu") {
    b.device = std::make_unique<CpuDevice>();
    std::unique_ptr<MpiComm> transport = MpiComm::world();
    b.mpi = transport->handle();
    b.world = wrap_transport(std::move(transport), std::make_shared<CommCounters>(), b.trace);
  } else {
    b.device = cuda::make_device_for_rank();
    b.world = cuda::make_world(*b.device, setup.comm, std::make_shared<CommCounters>(), b.trace);
  }
  return b;
}

/// Checks on rank 0, the rank that writes it, that `path` can take what `require` checks, and
/// makes every rank agree: rank 0 throws the UsageError that says why, the others one that
/// points at rank 0's message. Collective over MPI_COMM_WORLD: called before the command's
/// first collective.
void require_rank0_output(const std::optional<std::string>& path, std::string_view option,
                          void (*require)(const std::string&, std::string_view)) {
  if (!path) return;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int writable = 1;
  std::string why;
  if (rank == 0) {
    try {
      require(*path, option);
    } catch (const UsageError& e) {
      writable = 0;
      why = e.what();
    }
  }
  MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (writable != 0) return;
  if (rank == 0) throw UsageError(why);
  throw UsageError(
      fmt::format("{} {}: rank 0, which writes it, cannot (rank 0 says why)", option, *path));
}

void require_world_size(const WorldSetup& setup, int size) {
  if (setup.np.empty() || (setup.np.size() == 1 && setup.np[0] == size)) return;
  if (setup.np.size() > 1) {
    throw UsageError(fmt::format(
        "under mpiexec a job runs on the world it was started with: give --np {} (not --np {})",
        size, fmt::join(setup.np, ",")));
  }
  throw UsageError(fmt::format("this job runs on {} rank{} (--np {}), but mpiexec started {}",
                               setup.np[0], setup.np[0] == 1 ? "" : "s", setup.np[0], size));
}

/// Rank 0's result file: {key: records (each with "hosts", and "trace" with --trace), "pass",
/// "failures": []}.
nlohmann::json result_document(const WorldSetup& setup, const World& world, nlohmann::json records,
                               bool pass) {
  for (auto& record : records) {
    record["hosts"] = world.hosts.to_json();
    if (setup.trace) record["trace"] = *setup.trace;
  }
  return {{setup.key, std::move(records)}, {"pass", pass}, {"failures", nlohmann::json::array()}};
}

/// The work itself, with its progress kept as it goes, then rank 0's result file.
int run_work(const WorldSetup& setup, World& world, TraceRecorder* trace,
             const std::function<WorldResult(World&)>& work) {
  require_rank0_output(setup.json, "--json", require_result_target);
  require_rank0_output(setup.trace, "--trace", require_writable_file);
  if (trace != nullptr) {
    start_trace_clock(*trace, MPI_COMM_WORLD);
    world.device.trace_into(trace);
  }
  const bool writes = world.comm.rank() == 0 && setup.json;
  ProgressKeeper progress([&](nlohmann::json records) {
    write_progress(*setup.json, result_document(setup, world, std::move(records), false), "--json");
  });
  if (writes) {
    world.keep_progress = [&](const std::function<nlohmann::json()>& records) {
      progress.offer(records);
    };
  }
  WorldResult result = work(world);
  if (trace != nullptr) world.device.trace_into(nullptr);
  if (writes) {
    write_result(*setup.json, result_document(setup, world, std::move(result.records), result.pass),
                 "--json");
  }
  if (trace != nullptr) {
    write_trace_file(*trace, MPI_COMM_WORLD, *setup.trace, setup.backend,
                     world.device.description());
  }
  return result.pass ? 0 : kExitFailed;
}

}  // namespace

void validate_backend_choice(const std::string& backend, const std::string& comm) {
  if (backend != "cpu" && backend != "cuda") {
    throw UsageError(fmt::format("unknown backend '{}' (use cpu or cuda)", backend));
  }
  if (comm != "auto" && comm != "mpi" && comm != "nccl") {
    throw UsageError(fmt::format("unknown communicator '{}' (use auto, mpi or nccl)", comm));
  }
  if (backend == "cpu" && comm == "nccl") {
    throw UsageError("--comm nccl moves GPU memory; it needs --backend cuda");
  }
}

int run_in_world(const WorldSetup& setup, const std::function<WorldResult(World&)>& work) {
  MpiSession session;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Declared outside the try: a failing rank calls MPI_Abort with its device and communicator
  // still alive, rather than first tearing them down (an NCCL communicator may block there).
  Backend backend;
  std::optional<RankHosts> hosts;
  try {
    require_world_size(setup, size);
    backend = make_backend(setup);
    hosts.emplace(MPI_COMM_WORLD);
    World world{*backend.world, *backend.device, *hosts, backend.mpi};
    return run_work(setup, world, backend.trace.get(), work);
  } catch (const UsageError& e) {
    // Every rank reached the same verdict before any collective: report it and leave together.
    fmt::print(stderr, "tplab: error [rank {}/{}]: {}\n", rank, size, e.what());
    return kExitUsage;
  } catch (const NoDeviceError& e) {
    fmt::print(stderr, "tplab: [rank {}/{}] {}\n", rank, size, e.what());
    return kExitNoDevice;
  } catch (const NonFiniteError& e) {
    // Only this rank may have seen it: end the whole job rather than leave the others waiting.
    fmt::print(stderr, "tplab: [rank {}/{}] --check-finite: {}; ending the job\n", rank, size,
               e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitFailed);
    return kExitFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tplab: rank {}/{} failed: {}; ending the job\n", rank, size, e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitInternal);
    return kExitInternal;
  }
}

}  // namespace tplab::app
