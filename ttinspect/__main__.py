from ttinspect.cli.main import main

main()
