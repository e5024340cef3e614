#!/usr/bin/env bash
# The course's one command (see course/README.md).
#
#   scripts/course.sh list           the lessons
#   scripts/course.sh start NN       make course/work/: a copy of Lumen with lesson NN's functions
#                                    replaced by TODO stubs that compile
#   scripts/course.sh start NN --keep-mine
#                                    the same, then put back your own solutions of the other
#                                    lessons (saved each time `check` passes them all), so that you
#                                    end with an engine of your own
#   scripts/course.sh check NN       build course/work/ and run lesson NN's tests: what passes,
#                                    what is still missing (and why: gtest's failure block)
#   scripts/course.sh check NN --engine
#                                    the same tests on Lumen itself (the reference solution)
#   scripts/course.sh verify [NN...] for every lesson (or those given): the stubbed tree compiles,
#                                    every one of the lesson's tests fails on the stubs, Lumen
#                                    passes them all, and each known-bad variant of the lesson
#                                    (course/NN-*/bad/*.patch) fails at least one of them (CI runs
#                                    this through scripts/test.sh)
#
# Environment:
#   LUMEN_COURSE_JOBS=N              compile with N jobs (default: every core, nproc), e.g. 1 on a
#                                    machine that others share
#   LUMEN_COURSE_TEST_TIMEOUT=S      seconds a test may run before it counts as hung (default 120)
#   LUMEN_COURSE_WORK=DIR            the course tree (default course/work; verify: build/course-verify)
#   LUMEN_COURSE_SAVED=DIR           where solutions and edits are saved (default course/saved)
#
# A lesson's functions are marked in the engine's own source:
#
#     // LESSON 07 BEGIN: what the student writes here, in one line
#     ... the engine's code: the reference solution ...
#     // LESSON 07 END
#
# `start` replaces each such region with a TODO comment and a statement that throws, or with the
# statement of an optional `// LESSON 07 STUB: ...` line inside the region (for code that must not
# throw, such as what runs before main). Lesson NN's tests are listed in course/NN-*/tests.txt;
# a filter written `~Filter` is pending: while it matches no test, or its tests fail on the engine
# (their code is on a branch not merged yet), verify and check say so on a line of its own and do
# not count it; once its tests pass on the engine it is checked like any other (known-bad variants
# are checked without pending lines).
#
# Known-bad variants: course/NN-*/bad/<name>.patch is a plausible mistake in lesson NN's code (a
# unified diff against the engine, first line `# what the mistake is`). verify applies each to
# the engine's own code (no stubs) and proves that at least one of the lesson's tests fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${LUMEN_COURSE_WORK:-$root/course/work}
saved_root=${LUMEN_COURSE_SAVED:-$root/course/saved}  # the student's saved work
jobs=${LUMEN_COURSE_JOBS:-$(nproc)}  # compile jobs
test_timeout=${LUMEN_COURSE_TEST_TIMEOUT:-120}  # seconds per test before it counts as hung

die() {
  echo "course.sh: $*" >&2
  exit 2
}

[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "LUMEN_COURSE_JOBS must be a positive number, got '$jobs'"

usage() {
  sed -n '2,/^# A lesson/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
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
  (cd "$root" && find CMakeLists.txt .clang-format include source test demos scripts/cmake \
    -path test/data -prune -o -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.txt' \
    -o -name '.clang-format' -o -name '*.cmake' -o -name '*.in' -o -name '*.sh' \
    -o -name '*.proto' -o -name '*.inc' \) -print | sort)
}

# Files that hold markers of lesson $1.
marked_files() {
  (cd "$root" && grep -rl --include='*.cpp' "// LESSON $1 BEGIN" source demos test 2>/dev/null |
    sort) || true
}

# Prints file $2 with the regions of lesson $1 replaced by stubs ($3 is the path shown to students).
stub_file() {
  local include_error=1
  grep -q '#include "lumen/error.hpp"' "$2" && include_error=0
  awk -v lesson="$1" -v shown="$3" -v include_error="$include_error" '
    function indent_of(line) { match(line, /^[ \t]*/); return substr(line, 1, RLENGTH) }
    BEGIN { inside = 0; printed = 0 }
    # The stubs throw lumen::Error: make sure the file sees it.
    include_error && /^#include / {
      print; print "#include \"lumen/error.hpp\""; printed += 2; include_error = 0; next
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
  destination="$saved_root/lesson-$previous-$(date +%Y%m%d-%H%M%S)"
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
  local number dir quiet=${2:-} keep_mine=${3:-}
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
  ln -sfn "$root/tmp/anysize" "$work/tmp/anysize"
  ln -sfn "$root/tmp/onnx" "$work/tmp/onnx"  # the ONNX exports (lesson 16)
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
  [ -n "$keep_mine" ] && apply_saved_solutions "$number"
  # What start left, for save_solution to diff the student's edits against.
  mkdir -p "$work/.course/stubbed"
  while IFS= read -r file; do
    if ! cmp -s "$root/$file" "$work/$file"; then
      mkdir -p "$work/.course/stubbed/$(dirname "$file")"
      cp "$work/$file" "$work/.course/stubbed/$file"
    fi
  done < <(engine_files)
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
# prints the compiler's errors on failure. ccache, when installed, makes the second tree (and
# every lesson after the first) cost only the files that differ.
build_tests() {
  local tree=$1 build=$2 log
  shift 2
  log=$(mktemp)
  if [ ! -f "$build/CMakeCache.txt" ]; then
    local launcher=()
    command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    if ! cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" \
      > "$log" 2>&1; then
      cat "$log"
      rm -f "$log"
      return 1
    fi
  fi
  # ccache with paths relative to the tree: the engine's build and a course tree share hits.
  if ! (source "$root/scripts/ccache_settings.sh" "$tree" &&
    cmake --build "$build" -j"$jobs" --target lumen_tests > "$log" 2>&1); then
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

# The lines of tests.txt of lesson folder $1 without comments: "filter description".
lesson_lines() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    [ -n "${line// /}" ] && echo "$line"
  done < "$1/tests.txt"
  return 0
}

# Runs test $2 of binary $1 (from tree $3) in a process of its own, so that a crash in one test
# cannot hide the others. Returns 0 only if the test ran and passed (a skipped test did not pass);
# leaves its output in $4 and its exit status in RUN_STATUS (124: timed out).
run_test() {
  RUN_STATUS=0
  # The braces keep bash's own "Aborted" notice out of the student's screen: failure_reason says it.
  { (cd "$3" && timeout "$test_timeout" "$1" --gtest_filter="$2" --gtest_color=no > "$4" 2>&1); } \
    2>/dev/null || RUN_STATUS=$?
  [ "$RUN_STATUS" -eq 0 ] && ! grep -q '^\[  SKIPPED \]' "$4"
}

# Verification's quick path: every test of filter $2 in one process of $1 (run in tree $3, output
# in $4, given $5 seconds). Succeeds when that run finished and its tests all ended as $6 wants:
# all passed (expect-pass) or none did (expect-fail). Otherwise (a crash, a time-out, a test that
# did not end as it should) the caller runs the tests one by one, to say which and why. Starting
# the 3,900-test binary once per test had cost verify a minute or two.
run_tests_at_once() {
  local status=0 ran passed
  { (cd "$3" && timeout "$5" "$1" --gtest_filter="$2" --gtest_color=no > "$4" 2>&1); } \
    2>/dev/null || status=$?
  ran=$(sed -n 's/^\[==========\] \([0-9]*\) tests\{0,1\} from .* ran\..*/\1/p' "$4")
  [ -n "$ran" ] || return 1
  passed=$(grep -c '^\[       OK \]' "$4" || true)
  case $6 in
    expect-pass)
      [ "$status" -eq 0 ] && [ "$passed" -eq "$ran" ] && ! grep -q '^\[  SKIPPED \]' "$4"
      ;;
    expect-fail) [ "$passed" -eq 0 ] ;;
    *) return 1 ;;
  esac
}

# Why a failed test failed (its output is $1, its exit status $2): gtest's whole failure block
# (expected and actual values, the golden case's comparison line), at most 40 lines.
failure_reason() {
  if [ "$2" -eq 124 ]; then
    echo "        timed out after ${test_timeout}s: an endless loop? Its last words:"
    tail -3 "$1" | sed 's/^/        /'
  elif grep -q '^\[  SKIPPED \]' "$1"; then
    echo "        the test was skipped:"
    grep -B2 '^\[  SKIPPED \]' "$1" | head -2 | sed 's/^/        /'
  elif grep -q 'not written yet (' "$1"; then
    echo "        it still reaches a TODO stub: $(grep -o 'lesson [0-9]*: not written yet ([^)]*)' "$1" |
      head -1 | sed 's/.*(\(.*\))/\1/')"
  elif ! grep -q '^\[  FAILED  \]' "$1"; then
    echo "        the test crashed before it could report (a bad memory access, an abort); its last"
    echo "        words:"
    tail -5 "$1" | sed 's/^/        /'
  else
    awk '/^\[ RUN      \]/ { inside = 1; next }
         /^\[  FAILED  \]/ { exit }
         inside { if (++n > 40) { print "        ... (the rest: run the test alone)"; exit }
                  print "        " $0 }' "$1"
  fi
}

# Runs lesson $1's tests on binary $2 (tree $3). mode "report": prints what passes and what is
# missing; mode "expect-fail" / "expect-pass": prints only tests that do not fail / pass.
# Returns 0 when every test behaves as the mode wants.
run_lesson_tests() {
  local number=$1 binary=$2 tree=$3 mode=$4
  local dir filter description tests test output good=0 total=0 bad=0 line pending
  local planned=0 index=0
  dir=$(lesson_dir "$number")
  output=$(mktemp)
  if [ "$mode" = report ]; then
    while IFS= read -r line; do
      filter=$(awk '{print $1}' <<< "$line")
      planned=$((planned + $(list_tests "$binary" "${filter#\~}" | wc -l)))
    done < <(lesson_lines "$dir")
  fi
  while IFS= read -r line; do
    filter=$(awk '{print $1}' <<< "$line")
    description=$(sed -E 's/^[^ ]+ +//' <<< "$line")
    pending=0
    [ "${filter:0:1}" = "~" ] && pending=1 && filter=${filter:1}
    tests=$(list_tests "$binary" "$filter")
    if [ -z "$tests" ]; then
      if [ "$pending" -eq 1 ]; then
        echo "  - pending: '$filter' matches no test yet ($description); it is checked once it does"
      else
        echo "  ! '$filter' (course/$(basename "$dir")/tests.txt) matches no test"
        bad=$((bad + 1))
      fi
      continue
    fi
    local passed=0 count=0 failed_names="" reason="" timed_out=0 skipped=0
    if [ "$mode" != report ] && run_tests_at_once "$binary" "$filter" "$tree" "$output" \
      $((test_timeout * $(wc -w <<< "$tests"))) "$mode"; then
      count=$(wc -w <<< "$tests")
      [ "$mode" = expect-pass ] && passed=$count
      tests=""  # all ended as they should: nothing to run one by one
    fi
    for test in $tests; do
      count=$((count + 1))
      index=$((index + 1))
      if [ "$timed_out" -eq 1 ]; then
        skipped=$((skipped + 1))
        failed_names+=" $test"
        continue
      fi
      if [ "$mode" = report ]; then
        if [ -t 1 ]; then
          printf '\r\033[K    test %d of %d: %s' "$index" "$planned" "$test"
        else
          printf '    test %d of %d: %s\n' "$index" "$planned" "$test"
        fi
      fi
      if run_test "$binary" "$test" "$tree" "$output"; then
        passed=$((passed + 1))
        [ "$mode" = expect-fail ] && echo "  ! $test passes on the stubs: it cannot check lesson $number"
      else
        failed_names+=" $test"
        [ -z "$reason" ] && reason=$(failure_reason "$output" "$RUN_STATUS")
        [ "$RUN_STATUS" -eq 124 ] && timed_out=1
        [ "$mode" = expect-pass ] && [ "$pending" -eq 0 ] && echo "  ! $test fails on the engine" &&
          tail -20 "$output"
      fi
    done
    [ "$mode" = report ] && [ -t 1 ] && printf '\r\033[K'
    if [ "$pending" -eq 1 ] && [ "$passed" -lt "$count" ] && [ "$mode" != expect-fail ]; then
      # Code this line needs is on a branch not merged yet: say so, do not count it.
      echo "  - pending: $((count - passed)) of $count test(s) of '$filter' fail on this engine" \
        "($description); they count once they pass"
      continue
    fi
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
          [ "$skipped" -gt 0 ] &&
            echo "        (skipped the other $skipped test(s) of this line after the timeout)"
        fi
        ;;
      expect-fail) bad=$((bad + passed)) ;;
      expect-pass) bad=$((bad + count - passed)) ;;
    esac
  done < <(lesson_lines "$dir")
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

# The gtest filter of every test of lesson $1 but the pending ones.
lesson_filter() {
  local dir filter line joined=""
  dir=$(lesson_dir "$1")
  while IFS= read -r line; do
    filter=$(awk '{print $1}' <<< "$line")
    [ "${filter:0:1}" = "~" ] && continue  # pending lines may fail on the engine itself
    # Only a filter's positive part: gtest reads everything after the first '-' of the joined
    # filter as exclusions, so one line's "A*-*B" would exclude every line after it. Running the
    # tests a line excludes costs nothing here (the engine passes them; this filter only looks for
    # failures under a known-bad variant).
    joined+="${joined:+:}${filter%%-*}"
  done < <(lesson_lines "$dir")
  echo "$joined"
}

# Saves the student's solution of lesson $1 (course/work/ passes all its tests) in
# course/saved/NN/: one patch per file changed since `start`, against the stubbed file, and a
# copy of every file the student added. `start MM --keep-mine` puts them back.
save_solution() {
  local number=$1 destination="$saved_root/$1" file
  rm -rf "$destination"
  mkdir -p "$destination"
  while IFS= read -r file; do
    local base="$work/.course/stubbed/$file"
    [ -f "$base" ] || base="$root/$file"
    if [ -f "$base" ]; then
      mkdir -p "$destination/$(dirname "$file")"
      diff -u --label "a/$file" --label "b/$file" "$base" "$work/$file" \
        > "$destination/$file.patch" || true
    else
      mkdir -p "$destination/added/$(dirname "$file")"
      cp "$work/$file" "$destination/added/$file"
    fi
  done < <(cd "$work" && {
    md5sum --quiet -c .course/manifest 2>/dev/null | sed -n 's/: FAILED$//p' || true
    find include source test demos -path test/data -prune -o -type f -print 2>/dev/null |
      grep -v -x -F -f <(awk '{print $2}' .course/manifest) || true
  } | sort -u)
  echo "Your solution of lesson $number is saved in ${destination#"$root"/}/ (start NN" \
    "--keep-mine puts it back)."
}

# Puts the saved solutions of every lesson but $1 back into course/work/ (see save_solution):
# each file is stubbed for that lesson first, then the student's patch turns the stubs into the
# student's code, whatever other lesson's stubs the file holds now.
apply_saved_solutions() {
  local current=$1 saved number patch file stubbed applied
  for saved in "$saved_root"/[0-9][0-9]; do
    [ -d "$saved" ] || continue
    number=$(basename "$saved")
    [ "$number" = "$current" ] && continue
    applied=""
    while IFS= read -r patch; do
      file=${patch#"$saved"/}
      file=${file%.patch}
      [ -f "$work/$file" ] || { echo "  lesson $number: $file no longer exists; skipped"; continue; }
      stubbed=$(mktemp)
      stub_file "$number" "$work/$file" "$file" > "$stubbed"
      if patch -s -p1 --no-backup-if-mismatch -r - -o "$stubbed.new" "$stubbed" < "$patch" \
        > /dev/null 2>&1; then
        cp "$stubbed.new" "$work/$file"
        applied+=" $file"
      else
        echo "  lesson $number: your $file no longer fits the engine's; the engine's code stays"
      fi
      rm -f "$stubbed" "$stubbed.new"
    done < <(find "$saved" -name '*.patch' -not -path '*/added/*' | sort)
    if [ -d "$saved/added" ]; then
      (cd "$saved/added" && find . -type f | sed 's#^\./##') | while IFS= read -r file; do
        mkdir -p "$work/$(dirname "$file")"
        cp "$saved/added/$file" "$work/$file"
      done
    fi
    [ -n "$applied" ] && echo "Your lesson $number:$applied"
  done
  return 0
}

command_check() {
  local dir number engine=${2:-}
  dir=$(lesson_dir "$1")
  number=$(basename "$dir" | cut -c1-2)
  echo "Lesson $number: $(lesson_title "$dir")"
  if [ "$engine" = --engine ]; then
    echo "(on Lumen itself, built in build/)"
    if [ ! -x "$root/build/lumen_tests" ]; then
      echo "Lumen is not built yet: building it in build/ first (the first build takes several" \
        "minutes) ..."
    fi
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
  if run_lesson_tests "$number" "$work/build/lumen_tests" "$work" report; then
    save_solution "$number"
  else
    return 1
  fi
}

# Proves that lesson $1's tests reject each of its known-bad variants (course/NN-*/bad/*.patch),
# applied one at a time to the engine's own code in the verification tree.
verify_bad_variants() {
  local number=$1 dir patch name file problems=0 filter log status failed
  dir=$(lesson_dir "$number")
  filter=$(lesson_filter "$number")
  log=$(mktemp)
  local patches=("$dir"/bad/*.patch)
  [ -f "${patches[0]}" ] || { echo "  ! no known-bad variant (course/$(basename "$dir")/bad/)"; return 1; }
  for patch in "${patches[@]}"; do
    name=$(basename "$patch" .patch)
    # The lesson's functions as the engine has them, then the one mistake.
    for file in $(marked_files "$number") $(sed -n 's#^+++ b/\([^ \t]*\).*#\1#p' "$patch"); do
      sync_file "$root/$file" "$work/$file"
    done
    if ! patch -s -p1 --no-backup-if-mismatch -r - -d "$work" < "$patch" > "$log" 2>&1; then
      echo "  ! bad variant '$name' no longer applies to the engine:"
      sed 's/^/      /' "$log" | head -5
      problems=$((problems + 1))
    elif ! build_tests "$work" "$work/build" -DLUMEN_COURSE=ON; then
      echo "  ! bad variant '$name' does not compile"
      problems=$((problems + 1))
    else
      status=0
      # The braces keep bash's "Segmentation fault" notice out of the report (it says "crashed").
      { (cd "$work" && timeout 600 build/lumen_tests --gtest_filter="$filter" --gtest_color=no \
        > "$log" 2>&1); } 2>/dev/null || status=$?
      if [ "$status" -eq 0 ]; then
        echo "  ! bad variant '$name' passes every test: $(sed -n '1s/^# *//p' "$patch")"
        problems=$((problems + 1))
      else
        # Each failed test has two FAILED lines, its result and its name in the summary.
        failed=$(grep -c '^\[  FAILED  \] [A-Za-z].* ([0-9]* ms)$' "$log" || true)
        if [ "$status" -eq 124 ]; then
          failed="timed out"
        elif ! grep -q '^\[  FAILED  \]' "$log"; then
          failed="crashed"
        else
          failed="$failed test(s) fail"
        fi
        echo "  bad '$name' rejected ($failed): $(sed -n '1s/^# *//p' "$patch")"
      fi
    fi
    for file in $(sed -n 's#^+++ b/\([^ \t]*\).*#\1#p' "$patch"); do
      sync_file "$root/$file" "$work/$file"
    done
  done
  rm -f "$log"
  [ "$problems" -eq 0 ]
}

# Proves that `start NN --keep-mine` puts a saved solution back: a pretend student solves lesson
# 02 (the engine's code plus a line of their own), passes, and starts lesson 05 with --keep-mine.
verify_keep_mine() (
  local temporary file
  temporary=$(mktemp -d)
  work=$temporary/work
  saved_root=$temporary/saved
  command_start 02 quiet > /dev/null
  for file in $(marked_files 02); do
    { cat "$root/$file"; echo "// the student's own line (keep-mine self-test)"; } > "$work/$file"
  done
  save_solution 02 > /dev/null
  command_start 05 quiet --keep-mine > /dev/null
  local good=1
  for file in $(marked_files 02); do
    grep -q "keep-mine self-test" "$work/$file" || good=0
    grep -q "TODO(lesson 02)" "$work/$file" && good=0
  done
  for file in $(marked_files 05); do grep -q "TODO(lesson 05)" "$work/$file" || good=0; done
  rm -rf "$temporary"
  if [ "$good" -eq 1 ]; then
    echo "start --keep-mine: a saved lesson 02 solution is back in lesson 05's tree"
  else
    echo "  ! start --keep-mine did not put a saved lesson 02 solution back in lesson 05's tree"
    return 1
  fi
)

command_verify() {
  local lessons=("$@") engine_build="$root/build" problems=0 number dir started
  started=$(date +%s)
  [ ${#lessons[@]} -gt 0 ] || mapfile -t lessons < <(all_lessons)
  [ -x "$engine_build/lumen_tests" ] || die "build Lumen first (scripts/test.sh builds build/)"
  work=${LUMEN_COURSE_WORK:-$root/build/course-verify}
  export LUMEN_COURSE_WORK=$work
  rm -f "$work/.course/lesson"  # a verification tree holds no student work
  local lesson_started
  for number in "${lessons[@]}"; do
    lesson_started=$(date +%s)
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
    verify_bad_variants "$number" || problems=$((problems + 1))
    echo "  ($(($(date +%s) - lesson_started)) s)"
  done
  if [ ${#lessons[@]} -gt 1 ]; then verify_keep_mine || problems=$((problems + 1)); fi
  echo "course.sh verify took $(($(date +%s) - started)) s"
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

# The commands. Wrapped in one function called from the last line, so that bash has read the whole
# file before it runs anything: editing this script while it runs cannot change what runs.
main() {
  [ $# -ge 1 ] || usage
  local command=$1
  shift
  case $command in
    list) command_list ;;
    start)
      [ $# -ge 1 ] && [ $# -le 2 ] || usage
      [ $# -eq 1 ] || [ "$2" = --keep-mine ] || die "unknown option '$2'"
      command_start "$1" "" "${2:-}"
      ;;
    check) [ $# -ge 1 ] || usage; command_check "$@" ;;
    verify) command_verify "$@" ;;
    *) usage ;;
  esac
}

main "$@"; exit
