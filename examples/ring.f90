! ring: every step each rank sends a message of --bytes to rank+1 and
! receives one from rank-1 (periodic), so data travels once round the ring
! every P steps. Nearest-neighbour in rank order: block placement is already
! good (most partners share a node) and round-robin or random placement is
! poor, the opposite of the stencils. Written in Fortran with `use mpi` so that
! the profiler's C-level interposition is exercised through Fortran bindings.
!
! Self-check: rank r starts with a message filled with r; after k steps it
! holds the message of rank mod(r - k, P), every element checked.
program ring
  use mpi
  implicit none
  integer :: ierr, rank, nranks, left, right, step, iters, nwords, i, expected
  integer(kind=8) :: nbytes
  integer :: local_ok, all_ok
  integer, allocatable :: sendbuf(:), recvbuf(:)
  double precision :: t0, elapsed, slowest
  character(len=64) :: word
  character(len=24) :: time_text, per_iter_text

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)

  iters = 1000
  nbytes = 4096
  call parse_options(iters, nbytes)
  nwords = int(max(1_8, nbytes / 4))

  right = mod(rank + 1, nranks)
  left = mod(rank - 1 + nranks, nranks)
  allocate(sendbuf(nwords), recvbuf(nwords))
  sendbuf = rank
  local_ok = 1

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t0 = MPI_Wtime()
  do step = 1, iters
    call MPI_Sendrecv(sendbuf, nwords, MPI_INTEGER, right, 0, recvbuf, nwords, MPI_INTEGER, left, 0, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    sendbuf = recvbuf
  end do
  elapsed = MPI_Wtime() - t0

  expected = modulo(rank - iters, nranks)
  do i = 1, nwords
    if (sendbuf(i) /= expected) local_ok = 0
  end do
  call MPI_Reduce(elapsed, slowest, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(local_ok, all_ok, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (all_ok == 1) then
      word = 'ok'
    else
      word = 'FAILED'
    end if
    ! f20.9 then adjustl: f0.9 would drop the leading zero ("time=.26").
    write(time_text, '(f20.9)') slowest
    write(per_iter_text, '(f20.9)') slowest / max(iters, 1)
    write(*, '(a,i0,a,i0,a,i0,a,a,a,a,a,a)') 'ring ranks=', nranks, ' bytes=', 4 * int(nwords, 8), &
      ' iters=', iters, ' time=', trim(adjustl(time_text)), ' per_iter=', trim(adjustl(per_iter_text)), &
      ' check=', trim(word)
  end if
  deallocate(sendbuf, recvbuf)
  call MPI_Finalize(ierr)
  if (all_ok /= 1) stop 1

contains

  ! Same rules as the C examples: "--name value" pairs, whole numbers, unknown
  ! options rejected so a typo cannot run the default size.
  subroutine parse_options(iters, nbytes)
    integer, intent(inout) :: iters
    integer(kind=8), intent(inout) :: nbytes
    integer :: argi, nargs, status
    integer(kind=8) :: value
    character(len=256) :: name, text
    nargs = command_argument_count()
    argi = 1
    do while (argi <= nargs)
      call get_command_argument(argi, name)
      if (argi + 1 > nargs) call die('option '//trim(name)//' needs a value')
      call get_command_argument(argi + 1, text)
      read(text, *, iostat=status) value
      if (status /= 0) call die('option '//trim(name)//': not a whole number: '//trim(text))
      select case (trim(name))
      case ('--iters')
        if (value < 0 .or. value > 1000000000_8) call die('--iters must be in [0, 1e9]')
        iters = int(value)
      case ('--bytes')
        if (value < 4 .or. value > 1073741824_8) call die('--bytes must be in [4, 2^30]')
        nbytes = value
      case default
        call die('unknown option '//trim(name))
      end select
      argi = argi + 2
    end do
  end subroutine parse_options

  subroutine die(why)
    character(len=*), intent(in) :: why
    integer :: me, e
    call MPI_Comm_rank(MPI_COMM_WORLD, me, e)
    if (me == 0) write(0, '(a)') 'ring: '//why
    call MPI_Finalize(e)
    stop 2
  end subroutine die

end program ring
