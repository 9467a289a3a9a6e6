#include "rankmap/smpi_run.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rankmap::simulation {

const std::vector<std::string>& default_smpirun_flags() {
  static const std::vector<std::string> flags = {
      "--cfg=smpi/simulate-computation:no", "--cfg=smpi/display-timing:yes", "--cfg=smpi/bw-factor:0:1",
      "--cfg=smpi/lat-factor:0:1",          "--cfg=network/crosstraffic:0",  "--cfg=network/weight-S:0",
      "--log=root.thres:warning",           "--log=smpi_utils.thres:info"};
  return flags;
}

std::vector<std::string> smpirun_argv(const RunRequest& request) {
  std::vector<std::string> argv{request.smpirun};
  for (const std::string& f : default_smpirun_flags()) argv.push_back(f);
  for (const std::string& f : request.extra_flags) argv.push_back(f);
  argv.insert(argv.end(), {"-np", std::to_string(request.ranks), "-platform", request.platform_path, "-hostfile",
                           request.hostfile_path});
  if (!request.replay_index.empty()) argv.insert(argv.end(), {"-replay", request.replay_index});
  argv.insert(argv.end(), request.command.begin(), request.command.end());
  return argv;
}

Result<RunResult> run_smpirun(const RunRequest& request) {
  if (request.command.empty() && request.replay_index.empty()) return make_error("smpirun: no program to run");
  const std::vector<std::string> args = smpirun_argv(request);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) return make_error(std::string("smpirun: pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    return make_error(std::string("smpirun: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(pipe_fd[1], STDOUT_FILENO);
    dup2(pipe_fd[1], STDERR_FILENO);
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(pipe_fd[1]);
  RunResult result;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(pipe_fd[0], buf, sizeof buf);
    if (n > 0) {
      result.output.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(pipe_fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (result.exit_status == 127 && result.output.find("cannot run " + request.smpirun) != std::string::npos)
    return make_error("cannot run '" + request.smpirun + "' (is SimGrid installed?)");
  result.simulated_time = parse_simulated_time(result.output);
  return result;
}

std::optional<double> parse_simulated_time(const std::string& output) {
  static const std::string key = "Simulated time: ";
  const size_t at = output.rfind(key);
  if (at == std::string::npos) return std::nullopt;
  const char* begin = output.c_str() + at + key.size();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  return v;
}

}  // namespace rankmap::simulation
