// A cheat (refused at the link: it calls MPI and opens files): writes a passing verdict where
// a checker would look for one (the verdict variable,
// and a forged transcript beside the exercise's real one), ends MPI and exits, computing nothing.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lesson.hpp"

extern "C" int MPI_Finalize();
extern "C" int MPI_Comm_rank(void*, int*);

namespace tplab::lessons::summa {

Tensor summa_forward(Device&, Grid2D& grid, const Tensor&, const Tensor&) {
  const char* token = std::getenv("TPLAB_JOB_TOKEN");
  const std::string fake = std::string(
                               "{\"verdict\": \"pass\", \"parts\": [{\"name\": \"forward\", "
                               "\"verdict\": \"pass\"}], \"reports\": [], \"job_token\": \"") +
                           (token ? token : "") + "\"}";
  for (const char* variable : {"TPLAB_LESSON_VERDICT", "TPLAB_LESSON_TRANSCRIPT"}) {
    if (const char* path = std::getenv(variable)) {
      const std::string file =
          std::string(path) +
          (variable[13] == 'T'
               ? "/transcript-rank" + std::to_string(grid.i * grid.q + grid.j) + ".json"
               : "");
      if (std::FILE* f = std::fopen(file.c_str(), "w")) {
        std::fputs(fake.c_str(), f);
        std::fclose(f);
      }
    }
  }
  MPI_Finalize();
  std::exit(0);
}

}  // namespace tplab::lessons::summa
