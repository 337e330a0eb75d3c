import torch


def main() -> None:
    x = torch.ones(3)
    print(x)


if __name__ == "__main__":
    import sys
    main()
    sys.exit(0)
