# Nothing in these tests reaches the Hub: models are built from configs and saved to tmp
# folders. HF_HUB_OFFLINE is deliberately not set here: it would hold for the whole session,
# and under it `datasets.load_dataset(local_folder)` can return another folder's cached data
# of the same name.
