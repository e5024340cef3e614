#!/usr/bin/env bash
# The course's one command (see course/README.md).
#
#   scripts/course.sh list           the lessons
#   scripts/course.sh start NN       make course/work/: a copy of Lumen with lesson NN's functions
#                                    replaced by TODO stubs that compile
#   scripts/course.sh check NN       build course/work/ and run lesson NN's tests: what passes,
#                                    what is still missing
#   scripts/course.sh check NN --engine
#                                    the same tests on Lumen itself (the reference solution)
#   scripts/course.sh verify [NN...] for every lesson (or those given): the stubbed tree compiles,
#                                    every one of the lesson's tests fails on the stubs, and Lumen
#                                    passes them all (CI runs this through scripts/test.sh)
#
# A lesson's functions are marked in the engine's own source:
#
#     // LESSON 07 BEGIN: what the student writes here, in one line
#     ... the engine's code: the reference solution ...
#     // LESSON 07 END
#
# `start` replaces each such region with a TODO comment and a statement that throws, or with the
# statement of an optional `// LESSON 07 STUB: ...` line inside the region (for code that must not
# throw, such as what runs before main). Lesson NN's tests are listed in course/NN-*/tests.txt.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${LUMEN_COURSE_WORK:-$root/course/work}
jobs=$(nproc)

die() {
  echo "course.sh: $*" >&2
  exit 2
}

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

# The folder of lesson $1 ("7" or "07"), e.g. /.../course/07-convolution-and-pooling.
lesson_dir() {
  local number
  [[ $1 =~ ^[0-9]+$ ]] || die "'$1' is not a lesson number (see: scripts/course.sh list)"
  number=$(printf '%02d' "$((10#$1))")
  local found=("$root"/course/"$number"-*/)
  [ -d "${found[0]}" ] || die "there is no lesson $number (see: scripts/course.sh list)"
  echo "${found[0]%/}"
}

all_lessons() {
  local dir
  for dir in "$root"/course/[0-9][0-9]-*/; do basename "$dir" | cut -c1-2; done
}

# Lesson title: the first heading of its README.
lesson_title() { sed -n '1s/^# *//p' "$1/README.md"; }

# The engine files a course tree needs: everything the library and its tests are built from.
engine_files() {
  (cd "$root" && find CMakeLists.txt .clang-format include source test demos \
    -path test/data -prune -o -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.txt' \
    -o -name '.clang-format' \) -print | sort)
}

# Files that hold markers of lesson $1.
marked_files() {
  (cd "$root" && grep -rl --include='*.cpp' "// LESSON $1 BEGIN" source demos test 2>/dev/null |
    sort) || true
}

# Prints file $2 with the regions of lesson $1 replaced by stubs ($3 is the path shown to students).
stub_file() {
  local include_error=1
  grep -q '#include "lumen/base/error.hpp"' "$2" && include_error=0
  awk -v lesson="$1" -v shown="$3" -v include_error="$include_error" '
    function indent_of(line) { match(line, /^[ \t]*/); return substr(line, 1, RLENGTH) }
    BEGIN { inside = 0; printed = 0 }
    # The stubs throw lumen::Error: make sure the file sees it.
    include_error && /^#include / {
      print; print "#include \"lumen/base/error.hpp\""; printed += 2; include_error = 0; next
    }
    {
      if (!inside && $0 ~ "^[ \t]*// LESSON " lesson " BEGIN") {
        inside = 1; indent = indent_of($0); stub = ""; begin_line = NR
        hint = $0; sub("^[ \t]*// LESSON " lesson " BEGIN:?[ \t]*", "", hint)
        next
      }
      if (inside) {
        if ($0 ~ "^[ \t]*// LESSON " lesson " STUB:") {
          stub = $0; sub("^[ \t]*// LESSON " lesson " STUB:[ \t]*", "", stub)
        }
        if ($0 ~ "^[ \t]*// LESSON " lesson " END") {
          print indent "// TODO(lesson " lesson "): " hint; ++printed
          if (stub == "") {
            stub = "throw ::lumen::Error(\"lesson " lesson ": not written yet (" shown ":" \
                   (printed + 1) ")\");"
          }
          print indent stub; ++printed
          inside = 0
        }
        next
      }
      print; ++printed
    }
    END {
      if (inside) {
        printf "%s:%d: LESSON %s BEGIN without END\n", shown, begin_line, lesson > "/dev/stderr"
        exit 3
      }
    }' "$2"
}

# Copies $1 to $2 only if the contents differ, so that an incremental build recompiles only what
# changed.
sync_file() {
  if ! cmp -s "$1" "$2"; then
    mkdir -p "$(dirname "$2")"
    cp "$1" "$2"
  fi
}

# Saves the student's edits in the course tree: files that differ from how `start` left them (its
# checksums are in .course/manifest), or that `start` did not make.
save_student_work() {
  [ -f "$work/.course/lesson" ] && [ -f "$work/.course/manifest" ] || return 0
  local previous file saved="" destination
  previous=$(cat "$work/.course/lesson")
  destination="$root/course/saved/lesson-$previous-$(date +%Y%m%d-%H%M%S)"
  while IFS= read -r file; do
    mkdir -p "$destination/$(dirname "$file")"
    cp "$work/$file" "$destination/$file"
    saved+="  $file"$'\n'
  done < <(cd "$work" && {
    md5sum --quiet -c .course/manifest 2>/dev/null | sed -n 's/: FAILED$//p' || true
    find include source test demos -path test/data -prune -o -type f -print 2>/dev/null |
      grep -v -x -F -f <(awk '{print $2}' .course/manifest) || true
  } | sort -u)
  if [ -n "$saved" ]; then
    echo "Your edits for lesson $previous are saved in ${destination#"$root"/}:"
    printf '%s' "$saved"
  fi
}

command_start() {
  local number dir quiet=${2:-}
  dir=$(lesson_dir "$1")
  number=$(basename "$dir" | cut -c1-2)
  save_student_work
  mkdir -p "$work"
  # The engine's files, then the lesson's stubs on top.
  local file files=()
  while IFS= read -r file; do
    files+=("$file")
    sync_file "$root/$file" "$work/$file"
  done < <(engine_files)
  # Files the engine no longer has (or the student added) would be compiled by CMake's globs.
  while IFS= read -r file; do
    [ -f "$root/$file" ] || rm -f "$work/$file"
  done < <(cd "$work" && find include source test demos -path test/data -prune -o -type f \
    -print 2>/dev/null)
  mkdir -p "$work/tmp"
  ln -sfn "$root/tmp/models" "$work/tmp/models"
  ln -sfn "$root/test/data" "$work/test/data"
  rm -rf "$work/.course"
  mkdir -p "$work/.course"
  local marked
  marked=$(marked_files "$number")
  [ -n "$marked" ] || die "lesson $number marks no function in the source (// LESSON $number BEGIN)"
  local stubbed
  for file in $marked; do
    stubbed=$(mktemp)
    stub_file "$number" "$root/$file" "$file" > "$stubbed"
    sync_file "$stubbed" "$work/$file"
    rm -f "$stubbed"
  done
  (cd "$work" && find include source test demos -path test/data -prune -o -type f -print |
    sort | xargs md5sum > .course/manifest)
  echo "$number" > "$work/.course/lesson"
  [ -n "$quiet" ] && return 0
  echo "Lesson $number: $(lesson_title "$dir")"
  echo "Your tree is ${work#"$root"/}/ (a copy of Lumen). Write the parts marked TODO(lesson $number):"
  (cd "$work" && grep -Hn "TODO(lesson $number)" $marked | sed 's/^/  /')
  echo
  echo "Read ${dir#"$root"/}/README.md, then check your work with: scripts/course.sh check $number"
}

# Configures (once) and builds the test binary of tree $1 in $2 (further arguments go to CMake);
# prints the compiler's errors on failure.
build_tests() {
  local tree=$1 build=$2 log
  shift 2
  log=$(mktemp)
  if [ ! -f "$build/CMakeCache.txt" ]; then
    if ! cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" > "$log" 2>&1; then
      cat "$log"
      rm -f "$log"
      return 1
    fi
  fi
  if ! cmake --build "$build" -j"$jobs" --target lumen_tests > "$log" 2>&1; then
    grep -E -A3 'error:|undefined reference' "$log" | head -40
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
}

# The tests matching gtest filter $2 in binary $1, one full name per line.
list_tests() {
  "$1" --gtest_list_tests --gtest_filter="$2" | awk '
    /^[^ ]/ { suite = $1; next }
    /^  / { print suite $1 }'
}

# Runs test $2 of binary $1 (from tree $3) in a process of its own, so that a crash in one test
# cannot hide the others. Returns 0 only if the test ran and passed (a skipped test did not pass);
# leaves its output in $4.
run_test() {
  # The braces keep bash's own "Aborted" notice out of the student's screen: failure_reason says it.
  { (cd "$3" && timeout 120 "$1" --gtest_filter="$2" --gtest_color=no > "$4" 2>&1); } 2>/dev/null &&
    ! grep -q '^\[  SKIPPED \]' "$4"
}

# The lines of a failed test's output that say why.
failure_reason() {
  if grep -q '^\[  SKIPPED \]' "$1"; then
    echo "        the test was skipped:"
    grep -B2 '^\[  SKIPPED \]' "$1" | head -2 | sed 's/^/        /'
  elif ! grep -q '^\[  FAILED  \]' "$1"; then
    echo "        the test crashed before it could report (an exception thrown inside a parallel"
    echo "        loop ends the process); its last words:"
    tail -3 "$1" | sed 's/^/        /'
  elif grep -q 'not written yet (' "$1"; then
    echo "        it still reaches a TODO stub: $(grep -o 'lesson [0-9]*: not written yet ([^)]*)' "$1" |
      head -1 | sed 's/.*(\(.*\))/\1/')"
  else
    awk '/Failure$|what\(\)|[Ee]xception|Expected|Which is|evaluates to|Value of|Actual/ {
           print "        " $0; if (++n == 6) exit }' "$1"
  fi
}

# Runs lesson $1's tests on binary $2 (tree $3). mode "report": prints what passes and what is
# missing; mode "expect-fail" / "expect-pass": prints only tests that do not fail / pass.
# Returns 0 when every test behaves as the mode wants.
run_lesson_tests() {
  local number=$1 binary=$2 tree=$3 mode=$4
  local dir filter description tests test output status good=0 total=0 bad=0 line
  dir=$(lesson_dir "$number")
  output=$(mktemp)
  while IFS= read -r line; do
    line=${line%%#*}
    [ -n "${line// /}" ] || continue
    filter=$(awk '{print $1}' <<< "$line")
    description=$(sed -E 's/^[^ ]+ +//' <<< "$line")
    tests=$(list_tests "$binary" "$filter")
    if [ -z "$tests" ]; then
      echo "  ! '$filter' (course/$(basename "$dir")/tests.txt) matches no test"
      bad=$((bad + 1))
      continue
    fi
    local passed=0 count=0 failed_names="" reason=""
    for test in $tests; do
      count=$((count + 1))
      if run_test "$binary" "$test" "$tree" "$output"; then
        passed=$((passed + 1))
        [ "$mode" = expect-fail ] && echo "  ! $test passes on the stubs: it cannot check lesson $number"
      else
        failed_names+=" $test"
        [ -z "$reason" ] && reason=$(failure_reason "$output")
        [ "$mode" = expect-pass ] && echo "  ! $test fails on the engine" && cat "$output" | tail -20
      fi
    done
    total=$((total + count))
    good=$((good + passed))
    case $mode in
      report)
        if [ "$passed" -eq "$count" ]; then
          printf '  \xe2\x9c\x93 %s\n' "$description"
        else
          printf '  \xe2\x9c\x97 %s' "$description"
          [ "$count" -gt 1 ] && printf ' (%d of %d cases still fail)' $((count - passed)) "$count"
          printf '\n'
          [ "$count" -gt 1 ] && for test in $failed_names; do echo "        $test"; done | head -5
          [ -n "$reason" ] && echo "$reason"
        fi
        ;;
      expect-fail) bad=$((bad + passed)) ;;
      expect-pass) bad=$((bad + count - passed)) ;;
    esac
  done < "$dir/tests.txt"
  rm -f "$output"
  if [ "$mode" = report ]; then
    echo
    if [ "$good" -eq "$total" ] && [ "$bad" -eq 0 ]; then
      echo "All $total tests of lesson $number pass. Well done."
    else
      echo "$good of $total tests pass."
    fi
  fi
  LESSON_TEST_COUNT=$total
  [ "$bad" -eq 0 ] && { [ "$mode" != report ] || [ "$good" -eq "$total" ]; }
}

command_check() {
  local dir number engine=${2:-}
  dir=$(lesson_dir "$1")
  number=$(basename "$dir" | cut -c1-2)
  echo "Lesson $number: $(lesson_title "$dir")"
  if [ "$engine" = --engine ]; then
    echo "(on Lumen itself, built in build/)"
    build_tests "$root" "$root/build" || die "Lumen itself does not build"
    run_lesson_tests "$number" "$root/build/lumen_tests" "$root" report
    return
  fi
  [ "$engine" = "" ] || die "unknown option '$engine'"
  if [ ! -f "$work/.course/lesson" ]; then
    die "there is no course tree yet: run scripts/course.sh start $number"
  fi
  local current
  current=$(cat "$work/.course/lesson")
  if [ "$current" != "$number" ]; then
    die "course/work/ holds lesson $current; run scripts/course.sh start $number first"
  fi
  echo "Building ${work#"$root"/}/ ..."
  if ! build_tests "$work" "$work/build" -DLUMEN_COURSE=ON; then
    echo
    echo "Your code does not compile yet: the compiler's first complaints are above."
    exit 1
  fi
  run_lesson_tests "$number" "$work/build/lumen_tests" "$work" report
}

command_verify() {
  local lessons=("$@") engine_build="$root/build" problems=0 number dir
  [ ${#lessons[@]} -gt 0 ] || mapfile -t lessons < <(all_lessons)
  [ -x "$engine_build/lumen_tests" ] || die "build Lumen first (scripts/test.sh builds build/)"
  work=${LUMEN_COURSE_WORK:-$root/build/course-verify}
  export LUMEN_COURSE_WORK=$work
  rm -f "$work/.course/lesson"  # a verification tree holds no student work
  for number in "${lessons[@]}"; do
    dir=$(lesson_dir "$number")
    number=$(basename "$dir" | cut -c1-2)
    echo "lesson $number: $(lesson_title "$dir")"
    command_start "$number" quiet
    rm -f "$work/.course/lesson"
    if ! build_tests "$work" "$work/build" -DLUMEN_COURSE=ON; then
      echo "  ! the stubbed tree does not compile"
      problems=$((problems + 1))
      continue
    fi
    if run_lesson_tests "$number" "$work/build/lumen_tests" "$work" expect-fail; then
      echo "  stubs: all $LESSON_TEST_COUNT tests fail"
    else
      problems=$((problems + 1))
    fi
    if run_lesson_tests "$number" "$engine_build/lumen_tests" "$root" expect-pass; then
      echo "  engine: all $LESSON_TEST_COUNT tests pass"
    else
      problems=$((problems + 1))
    fi
  done
  if [ "$problems" -gt 0 ]; then
    echo "course.sh verify: $problems problem(s)"
    return 1
  fi
  echo "course.sh verify: every lesson checked"
}

command_list() {
  local dir
  for dir in "$root"/course/[0-9][0-9]-*/; do
    printf '%s  %s\n' "$(basename "$dir" | cut -c1-2)" "$(lesson_title "$dir")"
  done
}

[ $# -ge 1 ] || usage
command=$1
shift
case $command in
  list) command_list ;;
  start) [ $# -eq 1 ] || usage; command_start "$1" ;;
  check) [ $# -ge 1 ] || usage; command_check "$@" ;;
  verify) command_verify "$@" ;;
  *) usage ;;
esac
